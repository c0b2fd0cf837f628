// A 400 for the body of a keyed create is the first answer to its Idempotency-Key, kept and replayed as a 200 or a
// 409 is (issue 22): which refusals qualify, and the request's fingerprint. The keeping is idempotency-key.ts's.
//
// Kept: a 400 about the body (not JSON, not UTF-8, empty or missing, or breaking the contract's body rules) of an
// authenticated principal whose key is well formed. Not kept: a 400 about the key itself (there is no key to keep it
// under), or one answered before the body is read (a token or an unknown parameter in the query, two Authorization
// headers): the same request gets the same 400 again, and nothing was done.
import { checkValue, JsonBodyError, operationsOf, type ValueFacts } from '@plant-store/contract';
import { type KeptRefusalAnswer, keepRefusal, refusalFingerprintOf } from '@plant-store/core';
import type { FastifyRequest } from 'fastify';
import type { Store } from '../store/store.js';
import { keyedBodyBytes } from './json-body.js';
import type { Contract } from './openapi-document.js';

/** Keeps or replays a refusal; undefined when this refusal is not one to keep. */
export type RefusalKeeper = (
  request: FastifyRequest,
  error: unknown,
  refusal: { status: number; json: string },
) => Promise<KeptRefusalAnswer> | undefined;

interface Parameter {
  name?: string;
  in?: string;
  schema?: ValueFacts;
}

/** The operations declaring an `Idempotency-Key` header, with its schema, by operationId (from the document). */
function keyedOperations(contract: Contract): Map<string, ValueFacts & { name: string }> {
  const keyed = new Map<string, ValueFacts & { name: string }>();
  for (const { operation } of operationsOf<{ operationId?: string; parameters?: Parameter[] }>(contract.document)) {
    const key = operation.parameters?.find(
      (parameter) => parameter.in === 'header' && parameter.name?.toLowerCase() === 'idempotency-key',
    );
    if (operation.operationId && key?.schema) keyed.set(operation.operationId, { ...key.schema, name: 'key' });
  }
  return keyed;
}

/** A refusal about the body, decided once the body was read. */
function isBodyRefusal(error: unknown): boolean {
  if (error instanceof JsonBodyError) return true;
  return (error as { validationContext?: string }).validationContext === 'body';
}

export function refusalKeeper(contract: Contract, store: Store): RefusalKeeper {
  const keyed = keyedOperations(contract);
  return (request, error, refusal) => {
    if (refusal.status !== 400 || request.principal === null || !isBodyRefusal(error)) return undefined;
    const operationId = (request.routeOptions.config as { operationId?: string } | undefined)?.operationId;
    const facts = operationId === undefined ? undefined : keyed.get(operationId);
    const key = request.headers['idempotency-key'];
    if (operationId === undefined || facts === undefined || typeof key !== 'string') return undefined;
    // Fastify checks headers after the body, so a refused body has not had its key checked yet.
    if (!('value' in checkValue('path', facts, key, true))) return undefined;
    const owner = request.principal.subject;
    return refusalFingerprintOf(operationId, keyedBodyBytes(request) ?? new Uint8Array()).then((fingerprint) =>
      keepRefusal(store, owner, key, fingerprint, refusal),
    );
  };
}
