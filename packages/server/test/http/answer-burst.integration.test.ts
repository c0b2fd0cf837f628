// The answers of one turn of the event loop leave together at its end (http/answer-burst.ts): an answer sent is held
// until the turn's check phase, then written; through buildApp, a request alone is answered within its own turn.
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { issueToken } from '../../src/auth/tokens.js';
import { loadConfig } from '../../src/config.js';
import { registerAnswerBurst } from '../../src/http/answer-burst.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';

let app: FastifyInstance;
let store: Store;
let token: string;
const events: string[] = [];

beforeAll(async () => {
  store = await openStore('memory:');
  token = (await issueToken(store.tokens, { subject: 'burst' })).token;
  app = await buildApp({
    config: loadConfig({ LOG_LEVEL: 'silent', RATE_LIMIT_MAX: '0' }),
    store,
    configure(instance) {
      instance.addHook('onRequest', (request, reply, done) => {
        reply.raw.once('finish', () => events.push(`written ${request.headers['x-probe']}`));
        done();
      });
      instance.addHook('preHandler', (request, _reply, done) => {
        events.push(`handled ${request.headers['x-probe']}`);
        done();
      });
    },
  });
});
afterAll(async () => {
  await app.close();
  await store.close();
});

const get = (probe: string) =>
  app.inject({ method: 'GET', url: '/plants', headers: { authorization: `Bearer ${token}`, 'x-probe': probe } });

it('holds an answer sent until the end of the turn, then writes it', async () => {
  const bare = Fastify();
  registerAnswerBurst(bare);
  const seen: string[] = [];
  bare.get('/x', (_request, reply) => {
    reply.send('ok');
    queueMicrotask(() => seen.push(`same turn: ${reply.raw.writableEnded ? 'written' : 'held'}`));
    setImmediate(() => seen.push(`end of the turn: ${reply.raw.writableEnded ? 'written' : 'held'}`));
  });
  const answer = await bare.inject({ method: 'GET', url: '/x' });
  expect(answer.body).toBe('ok');
  await new Promise((resolve) => setImmediate(resolve));
  expect(seen).toEqual(['same turn: held', 'end of the turn: written']);
  await bare.close();
});

// A request that waits for something queued in the turn's check phase (the SQLite store's look, app.ts) is answered
// there; expect() queued the release behind it, so the answer leaves in that turn, before the next turn's timers.
it('lets an answer given in the check phase leave in that turn once expect() queued the release', async () => {
  const bare = Fastify();
  const burst = registerAnswerBurst(bare);
  const seen: string[] = [];
  bare.addHook('onRequest', (_request, _reply, done) => {
    setImmediate(done);
    burst.expect();
  });
  bare.get('/x', (_request, reply) => {
    reply.send('ok');
    // A timer already due when the turn ends runs first thing in the next turn: the answer has left by then.
    setTimeout(() => seen.push(reply.raw.writableEnded ? 'written' : 'held'), 0);
    const until = performance.now() + 3;
    while (performance.now() < until);
  });
  const answer = await bare.inject({ method: 'GET', url: '/x' });
  expect(answer.body).toBe('ok');
  await new Promise((resolve) => setTimeout(resolve, 5));
  expect(seen).toEqual(['written']);
  await bare.close();
});

it('answers a request alone within the turn it was handled in', async () => {
  events.length = 0;
  const answered = get('c');
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
  expect(events).toEqual(['handled c', 'written c']);
  expect((await answered).statusCode).toBe(200);
});
