// Which address a request counts against (the anonymous budget, the log): the peer's, unless TRUST_PROXY names the
// proxies in front by address; then the address the outermost trusted proxy saw. A client can never
// choose its own by writing X-Forwarded-For.
import { createTestApp, type TestApp } from '@plant-store/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** Statuses of tokenless requests, each claiming another X-Forwarded-For, from one peer. */
async function tokenless(app: TestApp['app'], count: number, remoteAddress = '127.0.0.1') {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) {
    const answer = await app.inject({
      method: 'GET',
      url: '/plants',
      remoteAddress,
      headers: { 'x-forwarded-for': `203.0.113.${i + 1}` },
    });
    statuses.push(answer.statusCode);
  }
  return statuses;
}

describe('the client address behind X-Forwarded-For', () => {
  it('ignores X-Forwarded-For without TRUST_PROXY: a varying header still spends one budget', async () => {
    t = await createTestApp({ env: { RATE_LIMIT_ANONYMOUS_MAX: '5' } });
    const statuses = await tokenless(t.app, 30);
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.slice(5).every((status) => status === 429)).toBe(true);
  });

  it('ignores X-Forwarded-For from a peer that is not one of the trusted proxy addresses', async () => {
    t = await createTestApp({ env: { RATE_LIMIT_ANONYMOUS_MAX: '5', TRUST_PROXY: '10.0.0.5,10.1.0.0/16' } });
    const statuses = await tokenless(t.app, 30, '127.0.0.1');
    expect(statuses.filter((status) => status === 429)).toHaveLength(25);
  });

  it('believes a trusted proxy only about the hop it saw, never the entries the client wrote before it', async () => {
    t = await createTestApp({ env: { RATE_LIMIT_ANONYMOUS_MAX: '5', TRUST_PROXY: '10.0.0.5' } });
    // The client wrote a fresh left-most entry each time; the proxy appended the address it saw, always the same.
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      const answer = await t.app.inject({
        method: 'GET',
        url: '/plants',
        remoteAddress: '10.0.0.5',
        headers: { 'x-forwarded-for': `198.51.100.${i + 1}, 192.0.2.7` },
      });
      statuses.push(answer.statusCode);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429, 429, 429]);
    // Another client behind the same proxy has its own budget.
    const other = await t.app.inject({
      method: 'GET',
      url: '/plants',
      remoteAddress: '10.0.0.5',
      headers: { 'x-forwarded-for': '192.0.2.8' },
    });
    expect(other.statusCode).toBe(401);
  });

  it('refuses TRUST_PROXY=true and hop counts at start-up, naming what to set instead', () => {
    expect(() => loadConfig({ TRUST_PROXY: 'true' })).toThrow(/TRUST_PROXY=true cannot tell a proxy.*TRUST_PROXY=10/);
    expect(() => loadConfig({ TRUST_PROXY: '1' })).toThrow(/TRUST_PROXY=1 cannot tell a proxy/);
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.0/33' })).toThrow(/TRUST_PROXY: "10.0.0.0\/33"/);
    expect(() => loadConfig({ TRUST_PROXY: 'balancer.internal' })).toThrow(/not an address/);
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.5, fd00::/8,loopback' }).trustProxy).toBe('10.0.0.5,fd00::/8,loopback');
  });
});
