// The rate limits, on every engine: requests without a valid token are limited per client address
// (RATE_LIMIT_ANONYMOUS_MAX), so a flood of bad tokens or bad routes ends in 429, while callers with a valid token keep
// their own budget (RATE_LIMIT_MAX); the two budgets are switched off one at a time. Shared through Redis, and Redis
// down: rate-limit-redis.system.test.ts.
import { createTestApp, type TestApp } from '@plant-store/test-kit';
import { call } from '@plant-store/test-kit/contract-call';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { StoreUnavailableError } from '../../src/store/store.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('rate limits for requests without a valid token', () => {
  it('answers 429 with Retry-After once one address spends its budget on bad tokens and bad routes', async () => {
    t = await createTestApp({ env: { RATE_LIMIT_ANONYMOUS_MAX: '4', RATE_LIMIT_MAX: '100' } });
    const good = await t.token('alice');
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      statuses.push((await call(t.app, { method: 'GET', url: '/plants', path: '/plants', token: 'bad' })).status);
    }
    statuses.push((await call(t.app, { method: 'POST', url: '/no-such-route' })).status);
    const refused = await call(t.app, { method: 'GET', url: '/plants', path: '/plants', token: 'bad' });
    const unrouted = await call(t.app, { method: 'GET', url: '/nothing-here' });
    const missing = await call(t.app, { method: 'GET', url: '/plants', path: '/plants' });
    expect(statuses).toEqual([401, 401, 401, 404]);
    for (const answer of [refused, unrouted, missing]) {
      expect(answer.status).toBe(429);
      expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
      expect(answer.json()).toEqual({ error: 429, message: expect.stringContaining('without a valid token') });
    }
    // A valid token is not refused for what others sent from the same address, and probes stay open.
    expect((await call(t.app, { method: 'GET', url: '/plants', path: '/plants', token: good })).status).toBe(200);
    expect((await call(t.app, { method: 'GET', url: '/healthz' })).status).toBe(200);
  });

  it('keeps the contract and its docs on a budget of their own: readable once the API budget is spent, still bounded', async () => {
    t = await createTestApp({ env: { RATE_LIMIT_ANONYMOUS_MAX: '3', RATE_LIMIT_MAX: '100' } });
    for (let i = 0; i < 3; i++) await call(t.app, { method: 'GET', url: '/plants', path: '/plants', token: 'bad' });
    expect((await call(t.app, { method: 'GET', url: '/plants', path: '/plants', token: 'bad' })).status).toBe(429);
    const documents = ['/openapi.yaml', '/openapi.json', '/docs/'];
    const read = [];
    for (const url of documents) read.push((await t.app.inject({ method: 'GET', url })).statusCode);
    expect(read).toEqual([200, 200, 200]);
    // Their own budget is spent now too: a flood of them ends in 429, saying which budget, and the API stays refused.
    const flooded = await t.app.inject({ method: 'GET', url: '/openapi.json?again' });
    expect(flooded.statusCode).toBe(429);
    expect(Number(flooded.headers['retry-after'])).toBeGreaterThan(0);
    expect(flooded.json()).toEqual({ error: 429, message: expect.stringContaining('for the contract and its docs') });
    expect((await t.app.inject({ method: 'GET', url: '/docs/static/index.html' })).statusCode).toBe(429);
    expect((await call(t.app, { method: 'GET', url: '/plants', path: '/plants', token: 'bad' })).status).toBe(429);
  });

  it('counts each address on its own', async () => {
    t = await createTestApp({ env: { RATE_LIMIT_ANONYMOUS_MAX: '2', TRUST_PROXY: '127.0.0.1' } });
    const from = (address: string) =>
      call(t!.app, { method: 'GET', url: '/plants', path: '/plants', headers: { 'x-forwarded-for': address } });
    expect([(await from('10.0.0.1')).status, (await from('10.0.0.1')).status]).toEqual([401, 401]);
    expect((await from('10.0.0.1')).status).toBe(429);
    expect((await from('10.0.0.2')).status).toBe(401);
  });

  it('leaves an outage a 503: requests whose token cannot be checked are not counted against their address', async () => {
    t = await createTestApp({ env: { RATE_LIMIT_ANONYMOUS_MAX: '2', RATE_LIMIT_MAX: '100' } });
    const good = await t.token('alice');
    // The store goes away: no token can be checked, the cached ones included.
    const tokens = t.store.tokens as { cachedByHash?: unknown; findByHash: unknown };
    const { cachedByHash, findByHash } = tokens;
    tokens.cachedByHash = undefined;
    tokens.findByHash = async () => {
      throw new StoreUnavailableError('the database is down');
    };
    const during: number[] = [];
    for (let i = 0; i < 5; i++) {
      during.push((await call(t.app, { method: 'GET', url: '/plants', path: '/plants', token: good })).status);
    }
    expect(during).toEqual([503, 503, 503, 503, 503]);
    // Back: the caller is served, and the address's budget is whole (a bad token is 401 twice before 429).
    Object.assign(tokens, { cachedByHash, findByHash });
    expect((await call(t.app, { method: 'GET', url: '/plants', path: '/plants', token: good })).status).toBe(200);
    const after: number[] = [];
    for (let i = 0; i < 3; i++) {
      after.push((await call(t.app, { method: 'GET', url: '/plants', path: '/plants', token: 'bad' })).status);
    }
    expect(after).toEqual([401, 401, 429]);
  });

  it('is configured by RATE_LIMIT_ANONYMOUS_MAX, on by default, 0 turning it off', () => {
    expect(loadConfig({}).rateLimit?.anonymousMax).toBe(600);
    expect(loadConfig({ RATE_LIMIT_ANONYMOUS_MAX: '0' }).rateLimit?.anonymousMax).toBe(0);
    expect(() => loadConfig({ RATE_LIMIT_ANONYMOUS_MAX: 'lots' })).toThrow(/RATE_LIMIT_ANONYMOUS_MAX/);
  });
});

describe('RATE_LIMIT_MAX=0', () => {
  it('keeps the anonymous budget: tokenless requests beyond RATE_LIMIT_ANONYMOUS_MAX get 429', async () => {
    t = await createTestApp({ env: { RATE_LIMIT_MAX: '0', RATE_LIMIT_ANONYMOUS_MAX: '3' } });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await t.app.inject({ method: 'GET', url: '/plants' })).statusCode);
    expect(statuses).toEqual([401, 401, 401, 429, 429, 429]);
  });

  it('lifts the per-principal limit: a valid token is never refused with 429', async () => {
    t = await createTestApp({ env: { RATE_LIMIT_MAX: '0', RATE_LIMIT_ANONYMOUS_MAX: '3' } });
    const token = await t.token('alice', ['read']);
    for (let i = 0; i < 20; i++) {
      const answer = await t.app.inject({
        method: 'GET',
        url: '/plants',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(answer.statusCode).toBe(200);
      expect(answer.headers['x-ratelimit-limit']).toBeUndefined();
    }
  });

  it('is read as two budgets, rate limiting off only when both are 0', () => {
    expect(loadConfig({ RATE_LIMIT_MAX: '0' }).rateLimit).toEqual({ max: 0, windowMs: 60_000, anonymousMax: 600 });
    expect(loadConfig({ RATE_LIMIT_MAX: '0', RATE_LIMIT_ANONYMOUS_MAX: '0' }).rateLimit).toBeNull();
  });
});
