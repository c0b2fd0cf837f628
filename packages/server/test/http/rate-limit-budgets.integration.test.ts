// The two rate-limit budgets are switched off one at a time: RATE_LIMIT_MAX=0 lifts the per-principal limit but
// keeps the per-address budget of requests without a valid token (RATE_LIMIT_ANONYMOUS_MAX).
import { createTestApp, type TestApp } from '@plant-store/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
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
