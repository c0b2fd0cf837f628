// The body check of an operation that takes a body, as the route's preValidation hook: a required body that was not
// sent is a 400 (Fastify validates a body only when one was sent), and a body sent with an Idempotency-Key, which the
// parser hands on unparsed (json-body.ts's KeyedBody), is parsed and validated here. Its refusal is decided here too:
// a 400 for the body of a keyed create is the first answer to its Idempotency-Key, kept and replayed as a 200 or a
// 409 is (issue 22), and the error handler only answers what is thrown.
//
// Kept: a 400 about the body (not JSON, not UTF-8, empty or missing, or breaking the contract's body rules) of an
// authenticated principal whose key is well formed. Not kept: a 400 about the key itself (there is no key to keep it
// under), or one answered before the body is read (a token or an unknown parameter in the query, two Authorization
// headers): the same request gets the same 400 again, and nothing was done.
import { BODY_REQUIRED_MESSAGE, JsonBodyError } from '@plant-store/contract';
import { KEYED_OPERATIONS, keepRefusal, malformedKeyError, refusalFingerprintOf } from '@plant-store/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Store } from '../store/store.js';
import { errorAnswer } from './error-handler.js';
import { KeyedBody, parseJsonBody } from './json-body.js';
import type { ContractOperation } from './openapi-document.js';

type Validate = ((data: unknown) => boolean) & { errors?: unknown[] | null };

/** The route's compiled body validator: Fastify compiles one per media type of the operation's requestBody. */
function bodyValidator(request: FastifyRequest): Validate | undefined {
  const compiled = request.getValidationFunction('body') as unknown as Validate | Record<string, Validate> | undefined;
  if (typeof compiled === 'function') return compiled;
  return request.mediaType === undefined ? undefined : compiled?.[request.mediaType];
}

/** Throws what Fastify's validation would (the error handler words it) when `body` breaks the contract's rules. */
function validateBody(request: FastifyRequest, body: unknown): void {
  const validate = bodyValidator(request);
  if (validate === undefined || validate(body)) return;
  throw Object.assign(new Error('the body breaks the contract'), {
    statusCode: 400,
    code: 'FST_ERR_VALIDATION',
    validation: validate.errors,
    validationContext: 'body',
  });
}

export type BodyCheck = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined>;

/** The preValidation hook of each operation that takes a body; undefined for one that takes none. */
export function bodyCheck(store: Store): (operation: ContractOperation) => BodyCheck | undefined {
  return (operation) => {
    if (operation.body === null) return undefined;
    const { operationId } = operation;
    const required = operation.body.required;
    const keyed = Object.hasOwn(KEYED_OPERATIONS, operationId);

    /** The refusal kept (or the one kept before) under the request's key; undefined when it is not one to keep. */
    const kept = async (request: FastifyRequest, error: unknown, bytes: Uint8Array) => {
      const key = request.headers['idempotency-key'];
      if (!keyed || request.principal === null || typeof key !== 'string') return undefined;
      // Fastify checks headers after the body, so a refused body has not had its key checked yet.
      if (malformedKeyError(key) !== undefined) return undefined;
      const { status, message, json } = errorAnswer(error);
      if (status !== 400) return undefined;
      const fingerprint = await refusalFingerprintOf(operationId, bytes);
      const answer = await keepRefusal(store, request.principal.subject, key, fingerprint, { status, json });
      return { ...answer, reason: message };
    };

    return async (request, reply) => {
      const sent = request.body;
      const bytes = sent instanceof KeyedBody ? sent.bytes : new Uint8Array();
      try {
        // A body the parser parsed (sent without a key) is validated by Fastify itself, next.
        const body = sent instanceof KeyedBody ? parseJsonBody(bytes, !required) : sent;
        if (body === undefined && required) throw new JsonBodyError(BODY_REQUIRED_MESSAGE);
        if (sent instanceof KeyedBody) {
          if (body !== undefined) validateBody(request, body);
          request.body = body;
        }
        return undefined;
      } catch (error) {
        const answer = await kept(request, error, bytes);
        if (answer === undefined) throw error;
        request.log.info({ status: answer.status, reason: answer.reason }, 'request refused (kept for its key)');
        return reply
          .code(answer.status)
          .headers(answer.headers)
          .type('application/json; charset=utf-8')
          .send(answer.json);
      }
    };
  };
}
