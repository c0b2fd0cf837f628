// Idempotency-Key on createPlant (the IETF httpapi draft, Stripe's semantics): the request's fingerprint, the
// requests still in flight in this process, and the answers for a repeat. Web-platform code only (no Node imports):
// the server and the SDK's testing kit both run it.
import { ApiError, checkValue, type HeadersOf, type OperationId, type ValueFacts } from '@plant-store/contract';
import type { PlantStore } from '../store/plant-store.js';

// Operations whose declared headers include Idempotency-Key (one that declares no headers has string keys).
type KeyedOperationId = {
  [Op in OperationId]: string extends keyof HeadersOf<Op>
    ? never
    : 'idempotency-key' extends keyof HeadersOf<Op>
      ? Op
      : never;
}[OperationId];

/**
 * The operations that take an Idempotency-Key, checked against the contract's types: an operation that gains or
 * loses the header is a compile error here until this list follows.
 */
export const KEYED_OPERATIONS = { createPlant: true } as const satisfies Record<KeyedOperationId, true>;

/**
 * The Idempotency-Key header's schema, as openapi.yaml declares it: the generated facts carry no headers (the server
 * validates them from the document itself), and a unit test holds this equal to the document's.
 */
export const IDEMPOTENCY_KEY_FACTS = {
  name: 'idempotency-key',
  type: 'string',
  minLength: 1,
  maxLength: 255,
  pattern: '^[!-~]+$',
} as const satisfies ValueFacts & { name: string };

/** The 400 for a malformed key, in the words the service's validation gives a header's broken rule; else undefined. */
export function malformedKeyError(key: string): ApiError | undefined {
  const checked = checkValue('header', IDEMPOTENCY_KEY_FACTS, key, true);
  return 'detail' in checked ? new ApiError(400, checked.message) : undefined;
}

/**
 * Keys each principal keeps at most: the write that keeps one more forgets the principal's oldest beyond it, on every
 * engine (the server's sweeper also trims, idempotency/sweeper.ts).
 */
export const MAX_IDEMPOTENCY_KEYS_PER_PRINCIPAL = 10_000;

const encoder = new TextEncoder();

/** A digest of what a request asks for; a repeat with another fingerprint is another request (422). */
export async function fingerprintOf(parts: readonly unknown[]): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', encoder.encode(JSON.stringify(parts)));
  let text = '';
  for (const byte of new Uint8Array(digest)) text += byte.toString(16).padStart(2, '0');
  return text;
}

/** The bytes as base64, in chunks (String.fromCharCode takes one argument per byte). */
function base64Of(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/**
 * The fingerprint of a refused body: the exact bytes sent, under another shape than a create's (operationId, id,
 * name, tag), so a refused body never matches a valid one.
 */
export function refusalFingerprintOf(operationId: string, body: Uint8Array): Promise<string> {
  return fingerprintOf([operationId, 'refused', base64Of(body)]);
}

// The (owner, key) pairs whose first request is still being answered, per store (one per app).
const inFlightByStore = new WeakMap<PlantStore, Set<string>>();

/**
 * Runs `work` as the one request in flight for the owner's key: a repeat arriving meanwhile is answered 409 with
 * Retry-After at once, without touching the store.
 */
export async function oneAtATime<T>(store: PlantStore, owner: string, key: string, work: () => Promise<T>): Promise<T> {
  let inFlight = inFlightByStore.get(store);
  if (!inFlight) {
    inFlight = new Set();
    inFlightByStore.set(store, inFlight);
  }
  const id = `${owner}\u0000${key}`;
  if (inFlight.has(id)) {
    throw new ApiError(
      409,
      'a request with this Idempotency-Key is still being processed; retry it with the same key shortly for its answer',
      { 'retry-after': '1' },
    );
  }
  inFlight.add(id);
  try {
    return await work();
  } finally {
    inFlight.delete(id);
  }
}

/** The 422 for a key reused with another body. */
export function keyReusedError(): ApiError {
  return new ApiError(
    422,
    'this Idempotency-Key was already used for a request with another body; send a new key for a new request',
  );
}

/** A kept answer as it is sent: status, the JSON body as text, and headers. */
export interface KeptRefusalAnswer {
  status: number;
  json: string;
  headers: Readonly<Record<string, string>>;
}

/**
 * The most bytes of a refusal kept under a key. The service's refusals stay far below it (a caller-chosen name is
 * cut short in every message, see the contract's caller-text.ts); one beyond it is answered but not kept.
 */
export const MAX_KEPT_REFUSAL_BYTES = 2048;

/**
 * Keeps a 400 as the first answer to the owner's key, in the same place as a create's 200 or 409: the answer
 * itself when the key was unused (or expired), the one kept before (marked replayed) when a repeat has the same
 * fingerprint, and a 422 when it has another. A repeat while the key's first request is in flight is a 409. A
 * refusal over MAX_KEPT_REFUSAL_BYTES is answered as it is, and the key left as it was.
 */
export async function keepRefusal(
  store: PlantStore,
  owner: string,
  key: string,
  fingerprint: string,
  refusal: { status: number; json: string },
): Promise<KeptRefusalAnswer> {
  if (encoder.encode(refusal.json).length > MAX_KEPT_REFUSAL_BYTES) return { ...refusal, headers: {} };
  return oneAtATime(store, owner, key, async () => {
    const answer = { fingerprint, status: refusal.status, body: refusal.json };
    const previous = await store.idempotency.remember(owner, key, answer, Date.now());
    if (previous === undefined) return { ...refusal, headers: {} };
    if (previous.fingerprint !== fingerprint) throw keyReusedError();
    return { status: previous.status, json: previous.body, headers: REPLAYED_HEADERS };
  });
}

/** The header that marks a replayed answer. */
export const REPLAYED_HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'idempotent-replayed': 'true' });
