// The service's only body parser: JSON, strictly UTF-8, parsed exactly by the contract's parseJsonExact (integers
// beyond 2^53 as bigint, linear in the body size, prototype keys refused; see @plant-store/contract's exact-json.ts).
import {
  ApiError,
  BODY_EMPTY_MESSAGE,
  BODY_LIMIT_BYTES,
  BODY_NOT_UTF8_MESSAGE,
  callerText,
  JsonBodyError,
  parseJsonExact,
} from '@plant-store/contract';
import type { FastifyInstance } from 'fastify';
import type { ContractOperation } from './openapi-document.js';

/** The contract's limit on request bodies, in bytes (413 beyond it): openapi.yaml's `x-body-limit-bytes`. */
export const BODY_LIMIT = BODY_LIMIT_BYTES;

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

// The bytes of bodies sent with an Idempotency-Key: a refused body's answer is kept under their fingerprint.
const keyedBodies = new WeakMap<object, Uint8Array>();

/** The body bytes of a request sent with an Idempotency-Key, as read; undefined when none were read. */
export function keyedBodyBytes(request: object): Uint8Array | undefined {
  return keyedBodies.get(request);
}

/**
 * Makes parseJsonExact the only body parser: anything but application/json is a 415, and so is a charset other than
 * UTF-8 (JSON's only encoding, RFC 8259); invalid UTF-8 bytes are a 400, never replaced. An empty body is a 400 for
 * an operation that takes a body, and no body at all for one that takes none (DELETE), whatever Content-Type says.
 */
export function registerJsonBodyParser(app: FastifyInstance, operations: readonly ContractOperation[]): void {
  const bodyRequired = new Map(
    operations.map((operation) => [operation.operationId, operation.body?.required === true]),
  );
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(request.headers['content-type'] ?? '')?.[1];
    if (charset !== undefined && charset.toLowerCase() !== 'utf-8' && charset.toLowerCase() !== 'utf8') {
      return done(
        new ApiError(415, `the request body must be UTF-8 JSON; charset "${callerText(charset)}" is not accepted`),
      );
    }
    const bytes = body as Buffer;
    if (request.headers['idempotency-key'] !== undefined) keyedBodies.set(request, bytes);
    if (bytes.length === 0) {
      const operationId = (request.routeOptions.config as { operationId?: string } | undefined)?.operationId;
      if (operationId !== undefined && bodyRequired.get(operationId) === false) return done(null, undefined);
      return done(new JsonBodyError(BODY_EMPTY_MESSAGE), undefined);
    }
    let text: string;
    try {
      text = UTF8.decode(bytes);
    } catch {
      return done(new JsonBodyError(BODY_NOT_UTF8_MESSAGE), undefined);
    }
    try {
      done(null, parseJsonExact(text));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}
