// The bench's layer variants (tools/bench/src/layer-switches.ts) as buildApp builds them: each layer named is really
// left out (no security headers, no request id header, a remembered principal that outlives its token's revocation)
// while the app keeps answering by the contract.
import { buildApp, issueToken, loadConfig, openStore, type Store } from '@plant-store/server';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SWITCHED_LAYERS, switchedOff } from '../src/layer-switches.js';

describe('an app built with every bench layer switched off', () => {
  let app: FastifyInstance;
  let store: Store;
  let token: string;
  let tokenId: string;
  beforeAll(async () => {
    const config = loadConfig({ DATABASE_URL: 'memory:', LOG_LEVEL: 'silent', METRICS_PORT: 'off' });
    store = await openStore(config.databaseUrl);
    await store.migrate();
    app = await buildApp({ config, store, ...switchedOff(SWITCHED_LAYERS) });
    const issued = await issueToken(store.tokens, { subject: 'layer-switches' });
    token = issued.token;
    tokenId = issued.record.id;
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
    for (const name of ['x-frame-options', 'cache-control', 'x-content-type-options', 'x-request-id']) {
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

  it('remembers a principal once checked: auth is off, so a revoked token is still accepted', async () => {
    expect((await list(`Bearer ${token}`)).statusCode).toBe(200);
    await store.tokens.revoke(tokenId, new Date());
    expect((await list(`Bearer ${token}`)).statusCode).toBe(200);
  });
});

describe('an app built with no bench layer switched off', () => {
  it('is the service as it is: its headers, and a revoked token refused', async () => {
    const config = loadConfig({ DATABASE_URL: 'memory:', LOG_LEVEL: 'silent', METRICS_PORT: 'off' });
    const store = await openStore(config.databaseUrl);
    await store.migrate();
    const app = await buildApp({ config, store, ...switchedOff([]) });
    try {
      const { token, record } = await issueToken(store.tokens, { subject: 'layer-switches' });
      const list = () => app.inject({ method: 'GET', url: '/plants', headers: { authorization: `Bearer ${token}` } });
      const answer = await list();
      expect(answer.statusCode).toBe(200);
      expect(answer.headers['cache-control']).toBe('no-store');
      expect(answer.headers['x-request-id']).toBeDefined();
      await store.tokens.revoke(record.id, new Date());
      expect((await list()).statusCode).toBe(401);
    } finally {
      await app.close();
      await store.close();
    }
  });
});
