// The route handler that binds an operation (http/bindings.ts): it sends the answer itself and returns nothing, so
// Fastify never awaits the reply (a thenable that waits for the response's end); a handler's failure, thrown or
// rejected, is answered by the one error handler.
import { ApiError } from '@plant-store/contract';
import { handlers } from '@plant-store/core';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { issueToken } from '../../src/auth/tokens.js';
import { loadConfig } from '../../src/config.js';
import type { BoundHandler } from '../../src/http/bindings.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';

let store: Store;
let token: string;
let app: FastifyInstance | undefined;

beforeEach(async () => {
  store = await openStore('memory:');
  token = (await issueToken(store.tokens, { subject: 'binder' })).token;
});
afterEach(async () => {
  await app?.close();
  await store.close();
});

/** The app with `getPlants` bound to `getPlants`, and what each route handler returned to Fastify. */
async function appWith(getPlants: BoundHandler = handlers.getPlants as BoundHandler) {
  const returned: unknown[] = [];
  app = await buildApp({
    config: loadConfig({ LOG_LEVEL: 'silent', RATE_LIMIT_MAX: '0' }),
    store,
    handlers: { ...handlers, getPlants },
    webhookWorker: false,
    configure(instance) {
      instance.addHook('onRoute', (route) => {
        const bound = route.handler;
        route.handler = function (this: FastifyInstance, request, reply) {
          const result = bound.call(this, request, reply);
          returned.push(result);
          return result;
        };
      });
    },
  });
  const get = () => app!.inject({ method: 'GET', url: '/plants', headers: { authorization: `Bearer ${token}` } });
  return { get, returned };
}

it('answers and returns nothing for Fastify to await', async () => {
  const { get, returned } = await appWith();
  const answer = await get();
  expect(answer.statusCode).toBe(200);
  expect(answer.json()).toEqual([]);
  expect(returned).toEqual([undefined]);
});

it('answers a rejected handler through the error handler, in the Error shape', async () => {
  const { get } = await appWith(async () => {
    throw new ApiError(404, 'no such plant');
  });
  const answer = await get();
  expect(answer.statusCode).toBe(404);
  expect(answer.json()).toMatchObject({ error: 404, message: 'no such plant' });
});

it('answers a handler that throws before it returns a promise with a 500 that hides the cause', async () => {
  const { get } = await appWith((() => {
    throw new Error('secret detail');
  }) as unknown as BoundHandler);
  const answer = await get();
  expect(answer.statusCode).toBe(500);
  expect(answer.body).not.toContain('secret detail');
  expect(answer.json()).toMatchObject({ error: 500 });
});
