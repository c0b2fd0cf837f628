// The identity provider's key set (JWKS), fetched and cached with every wait and every size bounded, since any
// caller, with any made-up key id, can make the service look keys up:
// - at most one fetch per cooldown (JWT_JWKS_COOLDOWN_MS), whatever its outcome, shared by concurrent requests;
// - each fetch has a deadline (FETCH_TIMEOUT_MS), body included, and the answer a cap in bytes and in keys;
// - the last good key set keeps serving through an outage for STALE_MAX_MS after it was fetched (refreshed in the
//   background once older than MAX_AGE_MS), so valid tokens keep working while the provider is down.
import { createLocalJWKSet, errors, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';

/** Age after which the key set is refreshed (in the background while it still serves). */
export const MAX_AGE_MS = 10 * 60_000;
/** How long the last good key set keeps serving when no fetch succeeds (an outage of the provider). */
export const STALE_MAX_MS = 24 * 60 * 60_000;
/** Deadline of one fetch: connecting, the answer and its body. */
export const FETCH_TIMEOUT_MS = 5_000;
/** Largest JWKS answer read, in bytes (a provider's set is a few kB). */
export const MAX_BYTES = 256 * 1024;
/** Most keys a JWKS may hold. */
export const MAX_KEYS = 64;

export interface JwksOptions {
  /** Least time between two fetches, successful or not. */
  cooldownMs: number;
  fetch?: typeof globalThis.fetch;
  now?: () => number;
  timeoutMs?: number;
  /** Told of each failed fetch (the service logs it). */
  onFetchError?: (error: Error) => void;
  /** Told of each successful fetch (the service logs the end of an outage). */
  onFetched?: () => void;
}

class JwksFetchError extends Error {
  override name = 'JwksFetchError';
}

async function readCapped(response: Response, maxBytes: number): Promise<string> {
  if (Number(response.headers.get('content-length')) > maxBytes) {
    throw new JwksFetchError(`the JWKS answer is larger than ${maxBytes} bytes`);
  }
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new JwksFetchError(`the JWKS answer is larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function fetchKeySet(url: URL, fetch: typeof globalThis.fetch, timeoutMs: number): Promise<JSONWebKeySet> {
  const response = await fetch(url, {
    headers: { accept: 'application/json' },
    redirect: 'error',
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    throw new JwksFetchError(`the JWKS endpoint answered ${response.status}`);
  }
  const parsed = JSON.parse(await readCapped(response, MAX_BYTES)) as { keys?: unknown };
  if (!Array.isArray(parsed?.keys)) throw new JwksFetchError('the JWKS answer has no "keys" array');
  if (parsed.keys.length > MAX_KEYS) throw new JwksFetchError(`the JWKS holds more than ${MAX_KEYS} keys`);
  return parsed as JSONWebKeySet;
}

/** A jose key resolver over the provider's JWKS, with the bounds above. */
export function createJwksKeys(url: URL, options: JwksOptions): JWTVerifyGetKey {
  const fetch = options.fetch ?? globalThis.fetch;
  const now = options.now ?? Date.now;
  const timeoutMs = options.timeoutMs ?? FETCH_TIMEOUT_MS;
  let keys: ReturnType<typeof createLocalJWKSet> | null = null;
  let fetchedAt = Number.NEGATIVE_INFINITY;
  let attemptedAt = Number.NEGATIVE_INFINITY;
  let inFlight: Promise<void> | null = null;

  /** Starts a fetch unless one is running or the cooldown since the last attempt has not passed. */
  function refresh(): Promise<void> {
    if (inFlight) return inFlight;
    if (now() - attemptedAt < options.cooldownMs) return Promise.resolve();
    attemptedAt = now();
    inFlight = fetchKeySet(url, fetch, timeoutMs)
      .then((set) => {
        keys = createLocalJWKSet(set);
        fetchedAt = now();
        options.onFetched?.();
      })
      .catch((error: unknown) => options.onFetchError?.(error as Error))
      .finally(() => {
        inFlight = null;
      });
    return inFlight;
  }

  const usable = () => keys !== null && now() - fetchedAt <= STALE_MAX_MS;

  return async (header, token) => {
    if (!usable()) await refresh();
    else if (now() - fetchedAt > MAX_AGE_MS) void refresh();
    if (!usable()) throw new errors.JWKSNoMatchingKey('no usable key set from the JWKS endpoint');
    try {
      return await keys!(header, token);
    } catch (error) {
      // A key id the set does not hold may be a rotation: look again (at most once per cooldown).
      if (!(error instanceof errors.JWKSNoMatchingKey)) throw error;
      await refresh();
      if (!usable()) throw error;
      return keys!(header, token);
    }
  };
}
