// buildApp's general options for an embedding caller (tools/bench builds its layer variants with them): each changes
// only what its type says, and the app is the service as it is without them.
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { type AppOptions, buildApp } from '../../src/app.js';
import { issueToken } from '../../src/auth/tokens.js';
import { loadConfig } from '../../src/config.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';

const config = loadConfig({ DATABASE_URL: 'memory:', LOG_LEVEL: 'silent', METRICS_PORT: 'off' });
const opened: { app: FastifyInstance; store: Store }[] = [];

async function appWith(options: Partial<AppOptions> = {}, wrap: (store: Store) => Store = (store) => store) {
  const store = await openStore(config.databaseUrl);
  await store.migrate();
  const app = await buildApp({ config, store: wrap(store), ...options });
  opened.push({ app, store });
  const token = (await issueToken(store.tokens, { subject: 'app-options' })).token;
  const list = (authorization = `Bearer ${token}`) =>
    app.inject({ method: 'GET', url: '/plants?limit=2', headers: { authorization } });
  return { app, list };
}

afterEach(async () => {
  for (const { app, store } of opened.splice(0)) {
    await app.close();
    await store.close();
  }
});

describe('buildApp options', () => {
  it('answers with the security headers and a UUID request id by default', async () => {
    const answer = await (await appWith()).list();
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['x-frame-options']).toBeDefined();
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('genReqId makes the request ids; answerHeaders leaves out the headers set false', async () => {
    let next = 0;
    const withIds = await appWith({ genReqId: () => `id-${++next}` });
    expect((await withIds.list()).headers['x-request-id']).toBe('id-1');
    const bare = await appWith({ answerHeaders: { security: false, requestId: false } });
    const answer = await bare.list();
    expect(answer.statusCode).toBe(200);
    for (const name of ['x-frame-options', 'cache-control', 'x-content-type-options', 'x-request-id']) {
      expect(answer.headers[name], name).toBeUndefined();
    }
  });

  it('wrapSecurityHandlers wraps the real bearer checks, which still refuse an unknown token', async () => {
    const checked: string[] = [];
    const { list } = await appWith({
      wrapSecurityHandlers: (handlers) => ({
        bearerAuth: (operationId, scope) => {
          checked.push(operationId);
          return handlers.bearerAuth(operationId, scope);
        },
      }),
    });
    expect(checked).toContain('getPlants');
    expect((await list()).statusCode).toBe(200);
    expect((await list('Bearer pst_unknown')).statusCode).toBe(401);
  });

  it('configure runs on the app before its routes: a hook it adds runs for every operation', async () => {
    const { list } = await appWith({
      configure: (app) => {
        app.addHook('onSend', async (_request, reply) => {
          reply.header('x-configured', 'yes');
        });
      },
    });
    expect((await list()).headers['x-configured']).toBe('yes');
  });

  it('webhookWorker: false starts no delivery worker when the app listens', async () => {
    const reads = async (options: Partial<AppOptions>) => {
      let listening = false;
      let count = 0;
      const watch = (store: Store) =>
        new Proxy(store, {
          get(target, name, receiver) {
            if (listening && name === 'webhooks') count++;
            return Reflect.get(target, name, receiver);
          },
        });
      const { app } = await appWith(options, watch);
      await app.ready();
      listening = true;
      await app.listen({ host: '127.0.0.1', port: 0 });
      expect((app.server.address() as AddressInfo).port).toBeGreaterThan(0);
      return count;
    };
    expect(await reads({})).toBeGreaterThan(0);
    expect(await reads({ webhookWorker: false })).toBe(0);
  });
});
