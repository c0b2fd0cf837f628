// Identity-provider JWTs must expire (within JWT_MAX_LIFETIME_S), must not be issued in the future,
// must be access tokens by `typ`, and their `sub` follows the CLI's subject rules; each failure is a 401, never a 500
// (PostgreSQL refused a U+0000 in `sub` with a 500). Runs on every engine.
import { createTestApp, type TestApp } from '@plant-store/test-kit';
import { call } from '@plant-store/test-kit/contract-call';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const SECRET = 'a-shared-secret-of-at-least-32-characters!';
const key = new TextEncoder().encode(SECRET);
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({
    env: {
      JWT_SECRET: SECRET,
      JWT_ISSUER: 'https://idp.test/',
      JWT_AUDIENCE: 'plant-store',
      JWT_MAX_LIFETIME_S: '3600',
    },
  });
});
afterAll(async () => {
  await t?.close();
});

function sign(edit: (jwt: SignJWT) => SignJWT = (jwt) => jwt, header: Record<string, string> = {}) {
  const now = Math.floor(Date.now() / 1000);
  const jwt = new SignJWT({ scope: 'read write' })
    .setProtectedHeader({ alg: 'HS256', ...header })
    .setIssuer('https://idp.test/')
    .setAudience('plant-store')
    .setSubject('jwt-user')
    .setIssuedAt(now)
    .setExpirationTime(now + 300);
  return edit(jwt).sign(key);
}

const list = (token: string) => call(t.app, { method: 'GET', url: '/plants', path: '/plants', token });

describe('JWT claims', () => {
  it('accepts a well-formed access token', async () => {
    expect((await list(await sign())).status).toBe(200);
    expect((await list(await sign((jwt) => jwt, { typ: 'at+jwt' }))).status).toBe(200);
    expect((await list(await sign((jwt) => jwt, { typ: 'JWT' }))).status).toBe(200);
  });

  it('refuses a token without exp', async () => {
    const token = await new SignJWT({ scope: 'read write' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('https://idp.test/')
      .setAudience('plant-store')
      .setSubject('jwt-user')
      .setIssuedAt()
      .sign(key);
    expect((await list(token)).status).toBe(401);
  });

  it('refuses a lifetime beyond JWT_MAX_LIFETIME_S, and an iat in the future', async () => {
    const now = Math.floor(Date.now() / 1000);
    expect((await list(await sign((jwt) => jwt.setExpirationTime(now + 7200)))).status).toBe(401);
    expect((await list(await sign((jwt) => jwt.setIssuedAt(now + 600).setExpirationTime(now + 900)))).status).toBe(401);
  });

  it.each(['logout+jwt', 'id_token+jwt', 'dpop+jwt'])('refuses typ %s', async (typ) => {
    expect((await list(await sign((jwt) => jwt, { typ }))).status).toBe(401);
  });

  it.each([
    ['5007 characters', 'a'.repeat(5007)],
    ['a U+0000', 'al\u0000ice'],
    ['a newline', 'alice\nforged log line'],
    ['a C1 control', 'al\u0085ice'],
    ['leading space', ' alice'],
    ['trailing space', 'alice '],
    ['nothing', ''],
  ])('refuses a sub with %s with 401', async (_what, sub) => {
    const answer = await list(await sign((jwt) => jwt.setSubject(sub)));
    expect(answer.status).toBe(401);
    expect(answer.json()).toEqual({ error: 401, message: expect.any(String) });
  });
});
