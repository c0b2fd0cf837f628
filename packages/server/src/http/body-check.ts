// The body check of an operation that takes a body: a required body that was not sent is a 400 (Fastify validates a
// body only when one was sent), and a body sent with an Idempotency-Key, which the parser hands on unparsed
// (json-body.ts's KeyedBody), is parsed here, as the route's preValidation hook. Its refusal is decided here too: a 400
// for the body of a keyed create is the first answer to its Idempotency-Key, kept and replayed as a 200 or a 409 is
// (issue 22), and the error handler only answers what is thrown.
//
// Fastify alone validates a body against the contract, keyed or not, so each body is validated once. A keyed
// operation's route attaches its validation error to the request (Fastify's attachValidation) instead of answering it,
// and its handler hands that error to refuseInvalid below: a keyed body's refusal is kept, anything else is thrown as
// Fastify would have answered it.
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

declare module 'fastify' {
  interface FastifyRequest {
    /** A keyed body's bytes as sent, set by its body check (app.ts decorates every request with null). */
    keyedBodyBytes: Uint8Array | null;
  }
}

type ValidationError = NonNullable<FastifyRequest['validationError']>;

export interface BodyCheck {
  /** The route's preValidation hook. */
  preValidation: (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined>;
  /** Whether the route attaches its validation errors (a keyed operation), for its handler to call refuseInvalid. */
  attachValidation: boolean;
  /** Answers the validation error Fastify attached: kept under the request's key when it is a keyed body's, else thrown. */
  refuseInvalid: (request: FastifyRequest, reply: FastifyReply, error: ValidationError) => Promise<FastifyReply>;
}

/** The body check of each operation that takes a body; undefined for one that takes none. */
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

    /** Answers `error` with the refusal kept for it, or throws it when it is not one to keep. */
    const refuse = async (request: FastifyRequest, reply: FastifyReply, error: unknown, bytes: Uint8Array) => {
      const answer = await kept(request, error, bytes);
      if (answer === undefined) throw error;
      request.log.info({ status: answer.status, reason: answer.reason }, 'request refused (kept for its key)');
      return reply
        .code(answer.status)
        .headers(answer.headers)
        .type('application/json; charset=utf-8')
        .send(answer.json);
    };

    return {
      preValidation: async (request, reply) => {
        const sent = request.body;
        const bytes = sent instanceof KeyedBody ? sent.bytes : new Uint8Array();
        try {
          // A body the parser parsed (sent without a key) is as it arrived; Fastify validates both, next.
          const body = sent instanceof KeyedBody ? parseJsonBody(bytes, !required) : sent;
          if (body === undefined && required) throw new JsonBodyError(BODY_REQUIRED_MESSAGE);
          if (sent instanceof KeyedBody) {
            request.body = body;
            // A refusal of the body is kept under its bytes' fingerprint: kept on the request, not in a WeakMap,
            // whose set costs more than the validation this check no longer repeats (about 150 ns against 100).
            request.keyedBodyBytes = bytes;
          }
          return undefined;
        } catch (error) {
          return refuse(request, reply, error, bytes);
        }
      },
      attachValidation: keyed,
      refuseInvalid: async (request, reply, error) => {
        const bytes = request.keyedBodyBytes;
        // Only a keyed body's own refusal is kept: a header (the key itself) or a parameter is answered as it is.
        if (bytes === null || error.validationContext !== 'body') throw error;
        return refuse(request, reply, error, bytes);
      },
    };
  };
}
