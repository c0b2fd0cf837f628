// The bench's switches for pricing layers (config.ts, http/bench-switches.ts): PLANT_STORE_BENCH_OFF takes only known
// layer names and none that weakens security (those only the bench's own code sets, in the config it builds the app
// with), and each layer switched off really is left out while the others keep working.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { issueToken } from '../../../src/auth/tokens.js';
import { BENCH_LAYERS, ConfigError, loadConfig, WEAKENING_LAYERS } from '../../../src/config.js';
import { openStore } from '../../../src/store/open-store.js';
import type { Store } from '../../../src/store/store.js';

describe('PLANT_STORE_BENCH_OFF', () => {
  it('is empty by default, takes known layer names once each, and refuses any other', () => {
    expect(loadConfig({}).benchOff).toEqual([]);
    expect(loadConfig({ PLANT_STORE_BENCH_OFF: 'request-ids, auth-cache,request-ids' }).benchOff).toEqual([
      'request-ids',
      'auth-cache',
    ]);
    expect(() => loadConfig({ PLANT_STORE_BENCH_OFF: 'rate-limits' })).toThrow(ConfigError);
  });

  it('refuses every layer whose absence weakens security, saying why', () => {
    expect(Object.keys(WEAKENING_LAYERS).sort()).toEqual(['auth', 'security-headers', 'serialization', 'validation']);
    for (const name of Object.keys(WEAKENING_LAYERS)) {
      expect(() => loadConfig({ PLANT_STORE_BENCH_OFF: `request-ids,${name}` })).toThrow(
        `PLANT_STORE_BENCH_OFF=${name} is refused: it weakens the service's security`,
      );
    }
    const safe = BENCH_LAYERS.filter((name) => !(name in WEAKENING_LAYERS));
    expect(loadConfig({ PLANT_STORE_BENCH_OFF: safe.join(',') }).benchOff).toEqual(safe);
  });
});

describe('an app built with layers switched off', () => {
  let app: FastifyInstance;
  let store: Store;
  let token: string;
  beforeAll(async () => {
    const config = loadConfig({ DATABASE_URL: 'memory:', LOG_LEVEL: 'silent' });
    store = await openStore(config.databaseUrl);
    await store.migrate();
    app = await buildApp({
      config: {
        ...config,
        benchOff: ['security-headers', 'request-ids', 'auth', 'validation', 'serialization', 'webhook-worker'],
      },
      store,
    });
    token = (await issueToken(store.tokens, { subject: 'bench-switches' })).token;
  });
  afterAll(async () => {
    await app.close();
    await store.close();
  });

  const list = (authorization: string, url = '/plants?limit=2') =>
    app.inject({ method: 'GET', url, headers: { authorization } });

  it('answers without the security headers and the request id', async () => {
    const answer = await list(`Bearer ${token}`);
    expect(answer.statusCode).toBe(200);
    for (const name of ['x-frame-options', 'cache-control', 'strict-transport-security', 'x-request-id']) {
      expect(answer.headers[name], name).toBeUndefined();
    }
  });

  it('still checks a token it has not seen, and serves plants with the query converted', async () => {
    expect((await list('Bearer pst_unknown')).statusCode).toBe(401);
    const created = await app.inject({
      method: 'POST',
      url: '/plants',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: { id: 1, name: 'Fern' },
    });
    expect(created.json()).toEqual({ name: 'Fern' });
    expect((await list(`Bearer ${token}`)).json()).toEqual([{ name: 'Fern' }]);
  });
});
