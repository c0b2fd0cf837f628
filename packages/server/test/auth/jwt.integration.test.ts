// Identity-provider JWTs: a JWKS endpoint on loopback, tokens signed with its keys, and every way one can be wrong.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestApp, type TestApp } from '@plant-store/test-kit';
import { call } from '@plant-store/test-kit/contract-call';
import { exportJWK, generateKeyPair, type JWK, SignJWT, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ISSUER = 'https://idp.example.test/';
const AUDIENCE = 'plant-store';

type Key = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

let jwksServer: Server;
let jwksFetches = 0;
const published: JWK[] = [];
let t: TestApp;
let keyA: Key;
let strangerKey: Key;

async function newKey(kid: string, publish: boolean): Promise<Key> {
  const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
  if (publish) published.push({ ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' });
  return privateKey;
}

function sign(key: Key, kid: string, claims: Record<string, unknown> = {}, edit?: (jwt: SignJWT) => SignJWT) {
  let jwt = new SignJWT({ scope: 'read write', ...claims })
    .setProtectedHeader({ alg: 'RS256', kid })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject('idp-user-1')
    .setIssuedAt()
    .setExpirationTime('5m');
  if (edit) jwt = edit(jwt);
  return jwt.sign(key);
}

beforeAll(async () => {
  keyA = await newKey('key-a', true);
  strangerKey = await newKey('key-a', false);
  jwksServer = createServer((_request, response) => {
    jwksFetches += 1;
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ keys: published }));
  });
  await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
  const { port } = jwksServer.address() as AddressInfo;
  t = await createTestApp({
    env: {
      JWT_JWKS_URL: `http://127.0.0.1:${port}/.well-known/jwks.json`,
      JWT_ISSUER: ISSUER,
      JWT_AUDIENCE: AUDIENCE,
      JWT_CLOCK_TOLERANCE_S: '30',
      JWT_JWKS_COOLDOWN_MS: '100',
    },
  });
});
afterAll(async () => {
  await t.close();
  jwksServer.close();
});

const list = (token: string) => call(t.app, { method: 'GET', url: '/plants', path: '/plants', token });
const create = (token: string, id: number) =>
  call(t.app, { method: 'POST', url: '/plants', path: '/plants', token, body: { id, name: `jwt ${id}` } });

describe('JWT bearer tokens', () => {
  it('accepts a valid token, with sub as the principal', async () => {
    const token = await sign(keyA, 'key-a');
    expect((await create(token, 1)).status).toBe(200);
    expect((await list(token)).json()).toEqual([{ name: 'jwt 1' }]);
    const other = await sign(keyA, 'key-a', {}, (jwt) => jwt.setSubject('idp-user-2'));
    expect((await list(other)).json()).toEqual([]);
  });

  it('still accepts the CLI’s opaque tokens', async () => {
    expect((await list(await t.token('cli-user'))).status).toBe(200);
  });

  it.each([
    ['a wrong issuer', (jwt: SignJWT) => jwt.setIssuer('https://evil.example.test/')],
    ['a wrong audience', (jwt: SignJWT) => jwt.setAudience('someone-else')],
    ['a not-before in the future', (jwt: SignJWT) => jwt.setNotBefore(Math.floor(Date.now() / 1000) + 300)],
  ])('refuses %s with 401', async (_case, edit) => {
    const answer = await list(await sign(keyA, 'key-a', {}, edit));
    expect(answer.status).toBe(401);
    expect(answer.headers['www-authenticate']).toContain('error="invalid_token"');
  });

  it('refuses an expired token, but allows a little clock skew', async () => {
    const now = Math.floor(Date.now() / 1000);
    const expired = await sign(keyA, 'key-a', {}, (jwt) => jwt.setIssuedAt(now - 600).setExpirationTime(now - 120));
    const answer = await list(expired);
    expect(answer.status).toBe(401);
    expect(answer.json()).toEqual({ error: 401, message: 'the bearer token has expired' });
    const skewed = await sign(keyA, 'key-a', {}, (jwt) => jwt.setIssuedAt(now - 600).setExpirationTime(now - 10));
    expect((await list(skewed)).status).toBe(200);
  });

  it('refuses a token signed by a key the JWKS does not hold', async () => {
    expect((await list(await sign(strangerKey, 'key-a'))).status).toBe(401);
  });

  it('refuses the "none" algorithm', async () => {
    const unsigned = new UnsecuredJWT({ scope: 'read write' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setSubject('idp-user-1')
      .setExpirationTime('5m')
      .encode();
    expect((await list(unsigned)).status).toBe(401);
  });

  it('takes scopes from the scope claim', async () => {
    const reader = await sign(keyA, 'key-a', { scope: 'read' });
    expect((await list(reader)).status).toBe(200);
    expect((await create(reader, 2)).status).toBe(403);
  });

  it('fetches the JWKS again when a token names an unknown key id (rotation)', async () => {
    const before = jwksFetches;
    const keyB = await newKey('key-b', true);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect((await list(await sign(keyB, 'key-b'))).status).toBe(200);
    expect(jwksFetches).toBe(before + 1);
    // The cached set now serves both keys without another fetch.
    expect((await list(await sign(keyA, 'key-a'))).status).toBe(200);
    expect(jwksFetches).toBe(before + 1);
  });
});
