// A JWKS endpoint that fails is logged as an outage: once when it starts (with the cause), then one summary per
// interval with how many fetches failed meanwhile, and once when a fetch succeeds again; never a line per attempt.
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import { beforeAll, expect, it } from 'vitest';
import { createJwtVerifier } from '../../src/auth/jwt.js';
import { loadConfig } from '../../src/config.js';

type Key = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
let privateKey: Key;
let jwk: JWK;

beforeAll(async () => {
  const pair = await generateKeyPair('RS256', { extractable: true });
  privateKey = pair.privateKey;
  jwk = { ...(await exportJWK(pair.publicKey)), kid: 'key-a', alg: 'RS256', use: 'sig' };
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
