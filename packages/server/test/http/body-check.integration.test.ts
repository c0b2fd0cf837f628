// The body check (http/body-check.ts) through buildApp: every body is validated against the contract once, by
// Fastify, a body sent with an Idempotency-Key included, and a keyed body's refusal is still answered as an unkeyed
// one is and kept for its key. The body validator's calls are counted through buildApp's `configure`, which wraps the
// service's own validator compiler.
import type { FastifyInstance, FastifySchemaCompiler } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { issueToken } from '../../src/auth/tokens.js';
import { loadConfig } from '../../src/config.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';

type Validate = ReturnType<FastifySchemaCompiler<unknown>>;

let app: FastifyInstance;
let store: Store;
let token: string;
/** Calls of createPlant's body validator (POST /plants) since the last `calls()`. */
let bodyValidations = 0;
const calls = () => {
  const counted = bodyValidations;
  bodyValidations = 0;
  return counted;
};

/** The service's validator compiler, its createPlant body validators counting their calls. */
function countingBodyValidators(app: FastifyInstance): void {
  const compile = app.validatorCompiler as FastifySchemaCompiler<unknown>;
  app.setValidatorCompiler((route) => {
    const validate = compile(route) as Validate;
    if (route.httpPart !== 'body' || route.method !== 'POST' || route.url !== '/plants') return validate;
    const counted: Validate = (data: unknown) => {
      bodyValidations++;
      const valid = validate(data);
      counted.errors = validate.errors;
      return valid;
    };
    return counted;
  });
}

beforeAll(async () => {
  const config = loadConfig({ DATABASE_URL: 'memory:', LOG_LEVEL: 'silent', METRICS_PORT: 'off', RATE_LIMIT_MAX: '0' });
  store = await openStore(config.databaseUrl);
  await store.migrate();
  app = await buildApp({ config, store, webhookWorker: false, configure: countingBodyValidators });
  token = (await issueToken(store.tokens, { subject: 'body-check' })).token;
});
afterAll(async () => {
  await app.close();
  await store.close();
});

const create = (payload: string, key?: string) =>
  app.inject({
    method: 'POST',
    url: '/plants',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      ...(key === undefined ? {} : { 'idempotency-key': key }),
    },
    payload,
  });

describe('the body check', () => {
  it('validates a keyed body once, as an unkeyed one', async () => {
    calls();
    expect((await create('{"id": 1, "name": "Fern"}', 'once-1')).statusCode).toBe(200);
    expect(calls()).toBe(1);
    expect((await create('{"id": 2, "name": "Moss"}')).statusCode).toBe(200);
    expect(calls()).toBe(1);
  });

  it('validates a refused keyed body once, answers it byte for byte as an unkeyed one, and replays it', async () => {
    const bad = `{"id": 3, "name": "${'x'.repeat(201)}"}`;
    calls();
    const unkeyed = await create(bad);
    expect(calls()).toBe(1);
    const keyed = await create(bad, 'once-400');
    expect(calls()).toBe(1);
    expect([keyed.statusCode, keyed.headers['content-type'], keyed.body]).toEqual([
      400,
      unkeyed.headers['content-type'],
      unkeyed.body,
    ]);
    expect(keyed.json()).toMatchObject({ error: 400, details: [{ field: 'name', rule: 'maxLength' }] });
    expect(keyed.headers['idempotent-replayed']).toBeUndefined();
    const replay = await create(bad, 'once-400');
    expect([replay.statusCode, replay.headers['idempotent-replayed'], replay.body]).toEqual([400, 'true', keyed.body]);
  });

  it('answers a malformed key as it is, unkept, whether the body is valid or not', async () => {
    const malformed = await create('{"id": 4, "name": "Ivy"}', 'two words');
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toEqual({ error: 400, message: expect.stringMatching(/header "idempotency-key"/i) });
    const bad = `{"id": 4, "name": ""}`;
    const both = await create(bad, 'two words');
    expect([both.statusCode, both.body]).toEqual([400, (await create(bad)).body]);
    expect((await create(bad, 'two words')).headers['idempotent-replayed']).toBeUndefined();
  });
});
