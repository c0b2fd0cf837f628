// The service's only body parser: JSON, strictly UTF-8, parsed exactly by the contract's parseJsonExact (integers
// beyond 2^53 as bigint, linear in the body size, prototype keys refused; see @plant-store/contract's exact-json.ts).
import {
  ApiError,
  BODY_EMPTY_MESSAGE,
  BODY_LIMIT_BYTES,
  BODY_NOT_UTF8_MESSAGE,
  callerText,
  charsetOf,
  isJsonCharset,
  JsonBodyError,
  parseJsonExact,
} from '@plant-store/contract';
import type { FastifyInstance } from 'fastify';
import type { ContractOperation } from './openapi-document.js';

/** The contract's limit on request bodies, in bytes (413 beyond it): openapi.yaml's `x-body-limit-bytes`. */
export const BODY_LIMIT = BODY_LIMIT_BYTES;

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The bytes of a body sent with an Idempotency-Key, as read and not yet parsed: the operation's body check
 * (body-check.ts) parses them, so a refusal of them is decided where the body is checked, with the exact bytes sent.
 */
export class KeyedBody {
  constructor(readonly bytes: Uint8Array) {}
}

/**
 * The JSON value of a body's bytes. Invalid UTF-8 bytes are a 400, never replaced; an empty body is a 400, or no body
 * at all (undefined) where `emptyIsNone` (an operation that takes no body, or need not).
 */
export function parseJsonBody(bytes: Uint8Array, emptyIsNone: boolean): unknown {
  if (bytes.length === 0) {
    if (emptyIsNone) return undefined;
    throw new JsonBodyError(BODY_EMPTY_MESSAGE);
  }
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw new JsonBodyError(BODY_NOT_UTF8_MESSAGE);
  }
  return parseJsonExact(text);
}

/**
 * Makes parseJsonExact the only body parser: anything but application/json is a 415, and so is a charset other than
 * UTF-8 (JSON's only encoding, RFC 8259). A body sent with an Idempotency-Key to an operation that takes one is handed
 * on unparsed, as a KeyedBody.
 */
export function registerJsonBodyParser(app: FastifyInstance, operations: readonly ContractOperation[]): void {
  const bodies = new Map(operations.map((operation) => [operation.operationId as string, operation.body]));
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const charset = charsetOf(request.headers['content-type'] ?? '');
    if (!isJsonCharset(charset)) {
      return done(
        new ApiError(
          415,
          `the request body must be UTF-8 JSON; charset "${callerText(charset ?? '')}" is not accepted`,
        ),
      );
    }
    const bytes = body as Buffer;
    const keyed = request.headers['idempotency-key'] !== undefined;
    // Read only when needed: Fastify builds routeOptions anew on every read.
    const operationId =
      keyed || bytes.length === 0
        ? (request.routeOptions.config as { operationId?: string } | undefined)?.operationId
        : undefined;
    const facts = operationId === undefined ? undefined : bodies.get(operationId);
    if (keyed && facts) return done(null, new KeyedBody(bytes));
    try {
      done(null, parseJsonBody(bytes, operationId !== undefined && facts?.required !== true));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}
