// Authentication, scopes and the one error path: every refusal in the Error shape with the right status and headers.

import { OPERATIONS } from '@plant-store/contract';
import { handlers } from '@plant-store/core';
import { createTestApp, TEST_DATABASE, type TestApp } from '@plant-store/test-kit';
import { call } from '@plant-store/test-kit/contract-call';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { issueToken } from '../../src/auth/tokens.js';
import { loadConfig } from '../../src/config.js';
import { checkBindings } from '../../src/http/bindings.js';
import { loadContract } from '../../src/http/openapi-document.js';
import { API_HEADERS } from '../../src/http/security-headers.js';

let t: TestApp;
let writer: string;

beforeAll(async () => {
  t = await createTestApp();
  writer = await t.token('writer');
});
afterAll(() => t.close());

const get = (headers: Record<string, string>, url = '/plants') =>
  call(t.app, { method: 'GET', url, path: '/plants', headers });

describe('bearer authentication', () => {
  it('answers 401 with a Bearer challenge when the header is missing', async () => {
    const answer = await get({});
    expect(answer.status).toBe(401);
    expect(answer.headers['www-authenticate']).toBe('Bearer realm="plant-store"');
    expect(answer.json()).toEqual({ error: 401, message: expect.stringContaining('missing Authorization header') });
  });

  it('answers 401 for another scheme', async () => {
    const answer = await get({ authorization: `Basic ${Buffer.from('a:b').toString('base64')}` });
    expect(answer.status).toBe(401);
    expect(answer.headers['www-authenticate']).toBe('Bearer realm="plant-store"');
  });

  it.each(['Bearer', 'Bearer ', 'Bearer a b', 'Bearer ä'])(
    'answers 401 invalid_token for the malformed "%s"',
    async (h) => {
      const answer = await get({ authorization: h });
      expect(answer.status).toBe(401);
    },
  );

  it('answers 401 invalid_token for an unknown token', async () => {
    const answer = await get({ authorization: 'Bearer pst_notarealtoken' });
    expect(answer.status).toBe(401);
    expect(answer.headers['www-authenticate']).toContain('error="invalid_token"');
    expect(answer.json()).toEqual({ error: 401, message: 'the bearer token is not recognised' });
  });

  it('answers a revoked token exactly as an unknown one, so a 401 never tells whether a token exists', async () => {
    const issued = await issueToken(t.store.tokens, { subject: 'revokee' });
    expect((await get({ authorization: `Bearer ${issued.token}` })).status).toBe(200);
    await t.store.tokens.revoke(issued.record.id, new Date());
    const answer = await get({ authorization: `Bearer ${issued.token}` });
    const unknown = await get({ authorization: 'Bearer pst_notarealtoken' });
    expect(answer.status).toBe(401);
    expect(answer.json()).toEqual({ error: 401, message: 'the bearer token is not recognised' });
    expect(answer.headers['www-authenticate']).toBe(unknown.headers['www-authenticate']);
    expect(answer.text).toBe(unknown.text);
  });

  it('answers 401 for an expired token', async () => {
    const issued = await issueToken(t.store.tokens, {
      subject: 'expiree',
      expiresInMs: 1000,
      now: new Date(Date.now() - 60_000),
    });
    const answer = await get({ authorization: `Bearer ${issued.token}` });
    expect(answer.status).toBe(401);
    expect(answer.json()).toEqual({ error: 401, message: 'the bearer token has expired' });
  });

  it('refuses a token in the query string with 400', async () => {
    const answer = await get({}, `/plants?access_token=${writer}`);
    expect(answer.status).toBe(400);
    expect((answer.json() as { message: string }).message).toContain('query string');
  });

  it('checks the token before the body: a bad body without a token is a 401', async () => {
    const answer = await call(t.app, { method: 'POST', url: '/plants', path: '/plants', body: { nope: true } });
    expect(answer.status).toBe(401);
  });

  it('answers 403 insufficient_scope when a read token writes, and when a write token reads', async () => {
    const reader = await t.token('reader', ['read']);
    const create = await call(t.app, {
      method: 'POST',
      url: '/plants',
      path: '/plants',
      token: reader,
      body: { id: 1, name: 'x' },
    });
    expect(create.status).toBe(403);
    expect(create.headers['www-authenticate']).toContain('error="insufficient_scope", scope="write"');
    expect(create.json()).toEqual({ error: 403, message: 'this token lacks the "write" scope that createPlant needs' });
    const del = await call(t.app, { method: 'DELETE', url: '/plants/1', path: '/plants/{id}', token: reader });
    expect(del.status).toBe(403);
    expect((await call(t.app, { method: 'GET', url: '/plants', path: '/plants', token: reader })).status).toBe(200);
    const writeOnly = await t.token('write-only', ['write']);
    expect((await call(t.app, { method: 'GET', url: '/plants', path: '/plants', token: writeOnly })).status).toBe(403);
  });
});

describe('routes outside the contract', () => {
  it('answers 404 in the Error shape for an unknown route', async () => {
    const answer = await call(t.app, { method: 'GET', url: '/nope' });
    expect(answer.status).toBe(404);
    expect(answer.json()).toEqual({ error: 404, message: 'no route GET /nope; see /openapi.json for the API' });
  });

  it('answers 405 with Allow for an undeclared method on a known path', async () => {
    // Allow lists the path's methods in the contract's order.
    const allowed = (path: string) =>
      OPERATIONS.filter((operation) => operation.path === path)
        .map((operation) => operation.method)
        .join(', ');
    const put = await call(t.app, { method: 'PUT', url: '/plants', token: writer });
    expect(put.status).toBe(405);
    expect(put.headers.allow).toBe(allowed('/plants'));
    const post = await call(t.app, { method: 'POST', url: '/plants/12' });
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe(allowed('/plants/{id}'));
  });

  it('serves health, readiness and the contract', async () => {
    expect((await call(t.app, { method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
    expect((await call(t.app, { method: 'GET', url: '/readyz' })).json()).toEqual({
      status: 'ok',
      database: TEST_DATABASE,
    });
    const json = await call(t.app, { method: 'GET', url: '/openapi.json' });
    expect((json.json() as { info: { title: string } }).info.title).toBe('OpenAPI Plant Store');
    const yaml = await call(t.app, { method: 'GET', url: '/openapi.yaml' });
    expect(yaml.headers['content-type']).toContain('yaml');
    expect(yaml.text).toContain('operationId: createPlant');
    const docs = await call(t.app, { method: 'GET', url: '/docs' });
    expect(docs.status).toBe(200);
    expect(docs.text).toContain('<html');
    expect(docs.text).not.toMatch(/https?:\/\/(cdn|unpkg|fonts)/);
  });
});

describe('headers on every answer', () => {
  it('echoes a sane x-request-id and makes one up otherwise', async () => {
    const echoed = await get({ authorization: `Bearer ${writer}`, 'x-request-id': 'trace-123' });
    expect(echoed.headers['x-request-id']).toBe('trace-123');
    const made = await get({ authorization: `Bearer ${writer}`, 'x-request-id': 'bad id\twith junk' });
    expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('sets nosniff and no-store on API answers, errors included', async () => {
    for (const answer of [await get({ authorization: `Bearer ${writer}` }), await get({})]) {
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
      expect(answer.headers['cache-control']).toBe('no-store');
    }
  });

  it('sets helmet’s security headers on API answers and on /docs, without a global content security policy', async () => {
    const api = await get({ authorization: `Bearer ${writer}` });
    const docs = await call(t.app, { method: 'GET', url: '/docs/' });
    for (const answer of [api, docs]) {
      expect(answer.headers['x-frame-options']).toBe('SAMEORIGIN');
      expect(answer.headers['referrer-policy']).toBe('no-referrer');
      expect(answer.headers['strict-transport-security']).toMatch(/^max-age=\d+/);
    }
    expect(api.headers['content-security-policy']).toBeUndefined();
    // /docs keeps swagger-ui's own policy, which a global one would contradict.
    expect(docs.headers['content-security-policy']).toBeDefined();
  });

  it('sets the document-only helmet headers on /docs alone: an API answer carries those that mean something for JSON', async () => {
    const documentOnly = [
      'cross-origin-opener-policy',
      'origin-agent-cluster',
      'x-dns-prefetch-control',
      'x-download-options',
      'x-permitted-cross-domain-policies',
      'x-xss-protection',
    ];
    const api = await get({ authorization: `Bearer ${writer}` });
    const docs = await call(t.app, { method: 'GET', url: '/docs/' });
    for (const name of documentOnly) {
      expect(docs.headers[name], name).toBeDefined();
      expect(api.headers[name], name).toBeUndefined();
    }
    for (const name of API_HEADERS) expect(api.headers[name], name).toBe(docs.headers[name]);
  });
});

describe('failures inside the service', () => {
  it('answers 500 with a generic message, hiding the cause', async () => {
    const broken = await createTestApp();
    const token = await broken.token('x');
    await broken.store.close();
    const answer = await call(broken.app, { method: 'GET', url: '/plants', path: '/plants', token });
    expect(answer.status).toBe(500);
    expect(answer.json()).toEqual({ error: 500, message: expect.stringContaining('internal server error') });
    expect(answer.text).not.toMatch(/sqlite|database|\.ts|at /i);
    const ready = await call(broken.app, { method: 'GET', url: '/readyz' });
    expect(ready.status).toBe(503);
    await broken.app.close();
  });
});

describe('rate limiting', () => {
  it('answers 429 with Retry-After per principal, leaving others alone', async () => {
    const limited = await createTestApp({ env: { RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_MS: '60000' } });
    const one = await limited.token('one');
    const two = await limited.token('two');
    const list = (token: string) => call(limited.app, { method: 'GET', url: '/plants', path: '/plants', token });
    // Every answer tells the principal its budget: the limit, what is left, and the seconds until the window resets.
    for (let i = 0; i < 3; i++) {
      const answer = await list(one);
      expect(answer.status).toBe(200);
      expect(answer.headers['x-ratelimit-limit']).toBe('3');
      expect(answer.headers['x-ratelimit-remaining']).toBe(String(2 - i));
      expect(Number(answer.headers['x-ratelimit-reset'])).toBeGreaterThan(0);
      expect(Number(answer.headers['x-ratelimit-reset'])).toBeLessThanOrEqual(60);
    }
    const refused = await list(one);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    expect(refused.json()).toEqual({ error: 429, message: expect.stringContaining('rate limit of 3 requests') });
    expect((await list(two)).status).toBe(200);
    await limited.close();
  });
});

describe('binding the contract', () => {
  it('refuses to start when an operation has no handler', async () => {
    const contract = loadContract();
    const { deletePlant: _dropped, ...partial } = handlers;
    expect(() => checkBindings(contract, partial, { bearerAuth: () => {} })).toThrow(
      'operation "deletePlant" (DELETE /plants/{id}) has no handler',
    );
    expect(() => checkBindings(contract, handlers, {})).toThrow('security scheme "bearerAuth"');
    expect(() =>
      checkBindings(contract, { ...handlers, deletePlants: async () => ({}) }, { bearerAuth: () => {} }),
    ).toThrow('handler "deletePlants" matches no operationId');
    // An operation the contract leaves open must be listed in OPEN_OPERATIONS, so its handler is typed for no principal.
    const opened = {
      ...contract,
      operations: contract.operations.map((operation) =>
        operation.operationId === 'getPlants' ? { ...operation, security: [] } : operation,
      ),
    };
    expect(() => checkBindings(opened, handlers, { bearerAuth: () => {} })).toThrow(
      'operation "getPlants" is open in the contract but not in OPEN_OPERATIONS',
    );
    const config = loadConfig({ DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'silent' });
    await expect(buildApp({ config, store: t.store, handlers: partial as never })).rejects.toThrow(
      'The server cannot start',
    );
  });
});
