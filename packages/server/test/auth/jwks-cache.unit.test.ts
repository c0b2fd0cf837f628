// The identity provider's key set is fetched with every wait and size bounded: a provider outage keeps the last good
// keys serving for a bounded time, refetches are rate-limited whatever their outcome (so made-up key ids cannot
// make the service hammer the provider), each fetch has a deadline, and the answer a cap in bytes and in keys.
import { exportJWK, generateKeyPair, type JWK, jwtVerify, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { createJwksKeys, MAX_AGE_MS, MAX_BYTES, MAX_KEYS, STALE_MAX_MS } from '../../src/auth/jwks.js';

const URL_ = new URL('https://idp.example.test/.well-known/jwks.json');
type Key = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
let privateKey: Key;
let jwk: JWK;

beforeAll(async () => {
  const pair = await generateKeyPair('RS256', { extractable: true });
  privateKey = pair.privateKey;
  jwk = { ...(await exportJWK(pair.publicKey)), kid: 'key-a', alg: 'RS256', use: 'sig' };
});

const sign = (kid = 'key-a') =>
  new SignJWT({}).setProtectedHeader({ alg: 'RS256', kid }).setExpirationTime('5m').sign(privateKey);

/** A fake provider: answers by `mode`, counting fetches. */
function provider() {
  const state = { fetches: 0, mode: 'up' as 'up' | 'down' | 'hang' | 'huge' | 'many', pulled: 0 };
  const fetch = (async (_url: unknown, init?: RequestInit) => {
    state.fetches += 1;
    if (state.mode === 'down') return new Response('unavailable', { status: 503 });
    if (state.mode === 'hang') {
      return new Promise<Response>((_resolve, reject) =>
        init?.signal?.addEventListener('abort', () => reject(init.signal!.reason)),
      );
    }
    if (state.mode === 'many') {
      return Response.json({ keys: Array.from({ length: MAX_KEYS + 1 }, (_, i) => ({ ...jwk, kid: `k${i}` })) });
    }
    if (state.mode === 'huge') {
      // 64 MiB, streamed without Content-Length: the reader must stop at the cap, not buffer it all.
      const chunk = new Uint8Array(64 * 1024).fill(0x20);
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          state.pulled += chunk.byteLength;
          if (state.pulled > 64 * 1024 * 1024) controller.close();
          else controller.enqueue(chunk);
        },
      });
      return new Response(body, { headers: { 'content-type': 'application/json' } });
    }
    return Response.json({ keys: [jwk] });
  }) as typeof globalThis.fetch;
  return { state, fetch };
}

const verifies = async (keys: ReturnType<typeof createJwksKeys>, token: string) =>
  jwtVerify(token, keys).then(
    () => true,
    () => false,
  );

describe('the JWKS key set', () => {
  it('keeps serving the last good keys through an outage beyond the cache age, for a bounded time', async () => {
    const { state, fetch } = provider();
    let clock = 0;
    const keys = createJwksKeys(URL_, { cooldownMs: 30_000, fetch, now: () => clock });
    const token = await sign();
    expect(await verifies(keys, token)).toBe(true);
    state.mode = 'down';
    clock += MAX_AGE_MS + 1;
    expect(await verifies(keys, token)).toBe(true);
    clock += STALE_MAX_MS;
    expect(await verifies(keys, token)).toBe(false);
  });

  it('fetches at most once per cooldown, failed fetches and made-up key ids included', async () => {
    const { state, fetch } = provider();
    let clock = 0;
    const keys = createJwksKeys(URL_, { cooldownMs: 30_000, fetch, now: () => clock });
    expect(await verifies(keys, await sign())).toBe(true);
    state.mode = 'down';
    clock += MAX_AGE_MS + 1;
    const before = state.fetches;
    await Promise.all(Array.from({ length: 20 }, async (_, i) => verifies(keys, await sign(`random-${i}`))));
    for (let i = 0; i < 20; i++) await verifies(keys, await sign(`random-more-${i}`));
    expect(state.fetches - before).toBe(1);
    clock += 30_000;
    await verifies(keys, await sign('random-later'));
    expect(state.fetches - before).toBe(2);
  });

  it('puts a deadline on each fetch', async () => {
    const { state, fetch } = provider();
    state.mode = 'hang';
    const keys = createJwksKeys(URL_, { cooldownMs: 0, fetch, timeoutMs: 200 });
    const started = Date.now();
    expect(await verifies(keys, await sign())).toBe(false);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it(`refuses an answer over ${MAX_BYTES} bytes without reading it all`, async () => {
    const { state, fetch } = provider();
    state.mode = 'huge';
    const errors: Error[] = [];
    const keys = createJwksKeys(URL_, { cooldownMs: 0, fetch, onFetchError: (error) => errors.push(error) });
    expect(await verifies(keys, await sign())).toBe(false);
    expect(state.pulled).toBeLessThan(MAX_BYTES * 4);
    expect(errors[0]?.message).toMatch(/larger than/);
  });

  it(`refuses a key set of more than ${MAX_KEYS} keys`, async () => {
    const { state, fetch } = provider();
    state.mode = 'many';
    const errors: Error[] = [];
    const keys = createJwksKeys(URL_, { cooldownMs: 0, fetch, onFetchError: (error) => errors.push(error) });
    expect(await verifies(keys, await sign())).toBe(false);
    expect(errors[0]?.message).toMatch(/more than 64 keys/);
  });
});
