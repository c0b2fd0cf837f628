// The identity provider's key set is fetched with every wait and size bounded: a provider outage keeps the last good
// keys serving for a bounded time, refetches are rate-limited whatever their outcome (so made-up key ids cannot
// make the service hammer the provider), each fetch has a deadline, and the answer a cap in bytes and in keys. A
// provider that fails is logged as an outage: once when it starts (with the cause), then one summary per interval with
// how many fetches failed meanwhile, and once when a fetch succeeds again; never a line per attempt.
import { exportJWK, generateKeyPair, type JWK, jwtVerify, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { createJwksKeys, MAX_AGE_MS, MAX_BYTES, MAX_KEYS, STALE_MAX_MS } from '../../src/auth/jwks.js';
import { createJwtVerifier } from '../../src/auth/jwt.js';
import { loadConfig } from '../../src/config.js';

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

it('logs the first failed JWKS fetch with its cause, then summaries, then the recovery', async () => {
  const lines: { level: string; details: Record<string, unknown>; message: string }[] = [];
  const log = {
    info: (details: object, message: string) => lines.push({ level: 'info', details: { ...details }, message }),
    warn: (details: object, message: string) => lines.push({ level: 'warn', details: { ...details }, message }),
  };
  let clock = 1_000_000;
  let up = false;
  let fetches = 0;
  const fetch = (async () => {
    fetches += 1;
    if (!up) throw new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 10.0.0.9:443') });
    return Response.json({ keys: [jwk] });
  }) as typeof globalThis.fetch;
  const config = loadConfig({
    JWT_JWKS_URL: 'https://idp.example.test/.well-known/jwks.json',
    JWT_ISSUER: 'https://idp.example.test/',
    JWT_AUDIENCE: 'plant-store',
    JWT_JWKS_COOLDOWN_MS: '1000',
  }).jwt!;
  const verify = await createJwtVerifier(config, { log, fetch, now: () => clock, outageSummaryMs: 10_000 });
  const token = await new SignJWT({ scope: 'read' })
    .setProtectedHeader({ alg: 'RS256', kid: 'key-a' })
    .setIssuer('https://idp.example.test/')
    .setAudience('plant-store')
    .setSubject('alice')
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(privateKey);

  // Eleven failed fetches a second apart (the cooldown): one line at the first, one summary after ten seconds.
  for (let attempt = 0; attempt < 11; attempt++) {
    expect(await verify(token)).toEqual({ ok: false, reason: 'invalid' });
    clock += 1_000;
  }
  expect(fetches).toBe(11);
  expect(lines.map((line) => line.level)).toEqual(['warn', 'warn']);
  expect(lines[0]?.message).toContain('cannot fetch the JWKS from https://idp.example.test/.well-known/jwks.json');
  expect(lines[0]?.message).toContain('a summary follows');
  expect((lines[0]?.details.err as Error | undefined)?.message).toBe('fetch failed');
  expect(lines[1]?.message).toContain('still failing, 10 more failures in the last 10 s');
  expect(lines[1]?.details).toMatchObject({ failures: 10, failuresInAll: 11 });

  up = true;
  const verified = await verify(token);
  expect(verified.ok).toBe(true);
  expect(lines).toHaveLength(3);
  expect(lines[2]).toMatchObject({ level: 'info', details: { failuresInAll: 11 } });
  expect(lines[2]?.message).toContain('recovered after 11 failures');
});
