// PLANT_STORE_BENCH_OFF, the bench's switches for pricing layers (config.ts, http/bench-switches.ts): only known
// layer names are accepted, and each named layer really is left out while the others keep working.
import { createTestApp, type TestApp } from '@plant-store/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config.js';

describe('PLANT_STORE_BENCH_OFF', () => {
  it('is empty by default, takes known layer names once each, and refuses any other', () => {
    expect(loadConfig({}).benchOff).toEqual([]);
    expect(loadConfig({ PLANT_STORE_BENCH_OFF: 'auth, validation,auth' }).benchOff).toEqual(['auth', 'validation']);
    expect(() => loadConfig({ PLANT_STORE_BENCH_OFF: 'rate-limits' })).toThrow(ConfigError);
  });
});

describe('an app with layers switched off', () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await createTestApp({
      env: { PLANT_STORE_BENCH_OFF: 'security-headers,request-ids,auth,validation,serialization,webhook-worker' },
    });
    token = await t.token('bench-switches');
  });
  afterAll(() => t.close());

  const list = (authorization: string, url = '/plants?limit=2') =>
    t.app.inject({ method: 'GET', url, headers: { authorization } });

  it('answers without the security headers and the request id', async () => {
    const answer = await list(`Bearer ${token}`);
    expect(answer.statusCode).toBe(200);
    for (const name of ['x-frame-options', 'cache-control', 'strict-transport-security', 'x-request-id']) {
      expect(answer.headers[name], name).toBeUndefined();
    }
  });

  it('still checks a token it has not seen, and serves plants with the query converted', async () => {
    expect((await list('Bearer pst_unknown')).statusCode).toBe(401);
    const created = await t.app.inject({
      method: 'POST',
      url: '/plants',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: { id: 1, name: 'Fern' },
    });
    expect(created.json()).toEqual({ name: 'Fern' });
    expect((await list(`Bearer ${token}`)).json()).toEqual([{ name: 'Fern' }]);
  });
});
