// The testing kit's own controls: tokens and scopes, seed, plantsOf, reset, revokeToken, scripted 429/5xx that the
// SDK retries, a rate limit, and exact int64 ids end to end through the client; and that every operation is answered
// by the service's own handler (@plant-store/core's map), its refusals included.
import { ApiError, OPERATIONS, type OperationId } from '@plant-store/contract';
import { handlers } from '@plant-store/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  AuthenticationError,
  BadRequestError,
  createPlantStoreClient,
  InternalServerError,
  PermissionDeniedError,
  RateLimitError,
  type RetryInfo,
} from '../../src/index.js';
import { createFakePlantStore } from '../../src/testing/index.js';

const baseUrl = 'http://plant-store.test';

/** Sends a raw request to the fake with `token`, answering [status, JSON body]. */
const sender =
  (fake: ReturnType<typeof createFakePlantStore>, token: string) =>
  async (method: string, path: string, body?: string) => {
    const response = await fake.fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body }),
    });
    return [response.status, await response.json()];
  };

describe('createFakePlantStore', () => {
  it('keeps plants per token subject, seeded or created, with exact int64 ids', async () => {
    const fake = createFakePlantStore();
    fake.seed('alice', [
      { id: 9223372036854775807n, name: 'Last' },
      { id: 1, name: 'First', tag: 'indoor' },
    ]);
    const alice = createPlantStoreClient({ baseUrl, token: fake.createToken({ subject: 'alice' }), fetch: fake.fetch });
    const bob = createPlantStoreClient({ baseUrl, token: fake.createToken({ subject: 'bob' }), fetch: fake.fetch });
    await alice.plants.create({ id: 9007199254740993n, name: 'Odd' });
    expect(await alice.plants.list()).toEqual([{ name: 'First', tag: 'indoor' }, { name: 'Odd' }, { name: 'Last' }]);
    expect(await bob.plants.list()).toEqual([]);
    expect(fake.plantsOf('alice').map((plant) => plant.id)).toEqual([1n, 9007199254740993n, 9223372036854775807n]);
    await alice.plants.delete(9007199254740993n);
    expect(fake.plantsOf('alice').map((plant) => plant.id)).toEqual([1n, 9223372036854775807n]);
    expect(() => fake.seed('alice', [{ id: 2, name: '' }])).toThrow(
      'body field "name" must be at least 1 character long',
    );
  });

  it('checks scopes, and refuses revoked and unknown tokens', async () => {
    const fake = createFakePlantStore();
    const readerToken = fake.createToken({ subject: 'r', scopes: ['read'] });
    const reader = createPlantStoreClient({ baseUrl, token: readerToken, fetch: fake.fetch });
    expect(await reader.plants.list()).toEqual([]);
    await expect(reader.plants.create({ id: 1, name: 'x' })).rejects.toBeInstanceOf(PermissionDeniedError);
    fake.revokeToken(readerToken);
    await expect(reader.plants.list()).rejects.toMatchObject({
      constructor: AuthenticationError,
      message: 'the bearer token is not recognised',
    });
    fake.reset();
    const writer = createPlantStoreClient({ baseUrl, token: fake.createToken({ subject: 'w' }), fetch: fake.fetch });
    await expect(writer.plants.create({ id: 1, name: 'x'.repeat(201) })).rejects.toMatchObject({
      constructor: BadRequestError,
      message: 'body field "name" must be at most 200 characters long',
    });
  });

  it('answers 429 and 5xx on demand, which the SDK retries and reports to onRetry', async () => {
    const fake = createFakePlantStore();
    const retries: RetryInfo[] = [];
    const api = createPlantStoreClient({
      baseUrl,
      token: fake.createToken({ subject: 'a' }),
      fetch: fake.fetch,
      sleep: async () => {},
      onRetry: (info) => retries.push(info),
    });
    fake.failNext({ status: 429, retryAfterSeconds: 2 });
    fake.failNext({ status: 503, times: 2 });
    expect(await api.plants.list({}, { maxRetries: 3 })).toEqual([]);
    expect(retries.map((retry) => [retry.reason.constructor, retry.delayMs > 0])).toEqual([
      [RateLimitError, true],
      [InternalServerError, true],
      [InternalServerError, true],
    ]);
    expect(retries[0]!.delayMs).toBe(2000);
    fake.failNext({ status: 500, message: 'boom' });
    await expect(api.plants.list()).rejects.toMatchObject({ constructor: InternalServerError, message: 'boom' });
    expect(fake.requests.map((request) => request.status)).toEqual([429, 503, 503, 200, 500]);
  });

  it('limits requests per subject when asked, with Retry-After', async () => {
    let now = 0;
    const fake = createFakePlantStore({ rateLimit: { max: 1, windowMs: 60_000 }, now: () => now });
    const api = createPlantStoreClient({
      baseUrl,
      token: fake.createToken({ subject: 'a' }),
      fetch: fake.fetch,
      retry: { maxRetries: 0 },
    });
    await api.plants.list();
    await expect(api.plants.list()).rejects.toMatchObject({
      constructor: RateLimitError,
      retryAfterMs: 60_000,
      message: 'rate limit of 1 requests exceeded; retry in 60 seconds',
    });
    now = 60_000;
    expect(await api.plants.list()).toEqual([]);
  });

  it('takes fetch(url, init) as well as fetch(request), and honours an aborted signal', async () => {
    const fake = createFakePlantStore();
    const token = fake.createToken({ subject: 'a' });
    const response = await fake.fetch(`${baseUrl}/plants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{"id":1,"name":"x"}',
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toMatch(/^fake-/);
    await expect(
      fake.fetch(`${baseUrl}/plants`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.abort() }),
    ).rejects.toThrow();
  });
});

describe('createFakePlantStore: query parameters, as the service has them', () => {
  it('refuses a query parameter the operation does not declare, naming it, on every operation', async () => {
    const fake = createFakePlantStore();
    const send = sender(fake, fake.createToken({ subject: 'a' }));
    expect(await send('GET', '/plants?tag=indoor')).toEqual([
      400,
      {
        error: 400,
        message: 'unknown query parameter "tag"; this operation accepts only limit, cursor',
        details: [{ location: 'query', field: 'tag', rule: 'unknownField' }],
      },
    ]);
    expect(await send('POST', '/plants?dryRun=1', '{"id":1,"name":"x"}')).toEqual([
      400,
      expect.objectContaining({
        message: 'unknown query parameter "dryRun"; this operation takes no query parameters',
      }),
    ]);
    expect(await send('GET', '/plants?limit=1&limit=2')).toEqual([
      400,
      expect.objectContaining({ message: 'query parameter "limit" is given 2 times; send it at most once' }),
    ]);
    expect((await send('GET', '/plants?access_token=x'))[1]).toMatchObject({
      message: expect.stringContaining('tokens in the query string'),
    });
    expect(fake.plantsOf('a')).toEqual([]);
  });

  it('refuses a repeated member name in the body and -0 as a path id, as the service does', async () => {
    const fake = createFakePlantStore();
    const send = sender(fake, fake.createToken({ subject: 'a' }));
    expect(await send('POST', '/plants', '{"id":5,"name":"x","id":9007199254740995}')).toEqual([
      400,
      expect.objectContaining({ message: expect.stringContaining('the member "id" appears more than once') }),
    ]);
    const [status, refusal] = await send('DELETE', '/plants/-0');
    expect(status).toBe(400);
    expect(refusal).toEqual((await send('DELETE', '/plants/01'))[1]);
    expect(fake.plantsOf('a')).toEqual([]);
  });

  it('is never sent one by the SDK: list, listPage and listAll across pages ask only for declared parameters', async () => {
    const fake = createFakePlantStore();
    fake.seed(
      'a',
      Array.from({ length: 5 }, (_, i) => ({ id: i + 1, name: `p${i}` })),
    );
    const api = createPlantStoreClient({ baseUrl, token: fake.createToken({ subject: 'a' }), fetch: fake.fetch });
    expect(await api.plants.list({ limit: 2 })).toHaveLength(2);
    const page = await api.plants.listPage({ limit: 2 });
    expect(await api.plants.listPage({ limit: 2, cursor: page.nextCursor as string })).toMatchObject({
      plants: [{}, {}],
    });
    const all = [];
    for await (const plant of api.plants.listAll({ pageSize: 2 })) all.push(plant);
    expect(all).toHaveLength(5);
    await api.plants.create({ id: 9, name: 'x' });
    await api.plants.delete(9);
    expect(fake.requests.every((request) => request.status < 400)).toBe(true);
    const names = fake.requests.flatMap((request) => [...new URL(request.url).searchParams.keys()]);
    expect(new Set(names)).toEqual(new Set(['limit', 'cursor']));
  });
});

describe('createFakePlantStore: Idempotency-Key and ETag, as the service has them', () => {
  it('replays a keyed create whose answer was lost, so the SDK resolves with the Plant and it is stored once', async () => {
    const fake = createFakePlantStore();
    let calls = 0;
    // The first answer is lost after the fake stored the plant, as a proxy dropping the connection would lose it.
    const lossy = async (request: Request) => {
      const answer = await fake.fetch(request.clone());
      if (++calls === 1) throw new TypeError('socket hang up');
      return answer;
    };
    const api = createPlantStoreClient({
      baseUrl,
      token: fake.createToken({ subject: 'a' }),
      fetch: lossy,
      sleep: async () => {},
    });
    expect(await api.plants.create({ id: 1, name: 'Fern' })).toEqual({ name: 'Fern' });
    expect(fake.plantsOf('a')).toEqual([{ id: 1n, name: 'Fern' }]);
    expect(fake.requests.map((request) => request.status)).toEqual([200, 200]);
  });

  it('answers a key reused with another body with 422, a replay with Idempotent-Replayed, a bad key with 400', async () => {
    const fake = createFakePlantStore();
    const token = fake.createToken({ subject: 'a' });
    const post = (body: unknown, key: string) =>
      fake.fetch(`${baseUrl}/plants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify(body),
      });
    expect((await post({ id: 1, name: 'a' }, 'k')).status).toBe(200);
    const replay = await post({ id: 1, name: 'a' }, 'k');
    expect([replay.status, replay.headers.get('idempotent-replayed'), await replay.json()]).toEqual([
      200,
      'true',
      { name: 'a' },
    ]);
    const other = await post({ id: 2, name: 'b' }, 'k');
    expect([other.status, (await other.json()).error]).toEqual([422, 422]);
    expect((await post({ id: 1, name: 'a' }, 'k2')).status).toBe(409);
    const conflict = await post({ id: 1, name: 'a' }, 'k2');
    expect([conflict.status, conflict.headers.get('idempotent-replayed')]).toEqual([409, 'true']);
    expect((await post({ id: 3, name: 'c' }, 'two words')).status).toBe(400);
    expect(fake.plantsOf('a')).toHaveLength(1);
  });

  it('keeps a 400 for the body under its key: the same body gets it replayed, another body a 422', async () => {
    const fake = createFakePlantStore();
    const token = fake.createToken({ subject: 'a' });
    const post = (body: string, key: string) =>
      fake.fetch(`${baseUrl}/plants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key },
        body,
      });
    const bad = JSON.stringify({ id: 1, name: 'x'.repeat(201) });
    const first = await post(bad, 'k');
    expect([first.status, first.headers.get('idempotent-replayed')]).toEqual([400, null]);
    const firstBody = await first.json();
    expect(firstBody).toMatchObject({ error: 400, details: [{ field: 'name', rule: 'maxLength' }] });
    const again = await post(bad, 'k');
    expect([again.status, again.headers.get('idempotent-replayed'), await again.json()]).toEqual([
      400,
      'true',
      firstBody,
    ]);
    expect((await post('{"id":1,"name":"ok"}', 'k')).status).toBe(422);
    expect((await post('{"id":', 'k2')).status).toBe(400);
    expect((await post('{"id":', 'k2')).headers.get('idempotent-replayed')).toBe('true');
    // A malformed key keeps nothing; a create with a fresh key is stored.
    expect((await post(bad, 'two words')).status).toBe(400);
    expect((await post('{"id":1,"name":"ok"}', 'k3')).status).toBe(200);
    expect(fake.plantsOf('a')).toEqual([{ id: 1n, name: 'ok' }]);
  });

  it('answers If-None-Match with 304 until a create or delete, and the SDK turns it into the kept page', async () => {
    const fake = createFakePlantStore();
    const token = fake.createToken({ subject: 'a' });
    const api = createPlantStoreClient({ baseUrl, token, fetch: fake.fetch });
    await api.plants.create({ id: 1, name: 'a' });
    expect(await api.plants.list()).toEqual([{ name: 'a' }]);
    expect(await api.plants.list()).toEqual([{ name: 'a' }]);
    await api.plants.create({ id: 2, name: 'b' });
    expect(await api.plants.list()).toEqual([{ name: 'a' }, { name: 'b' }]);
    await api.plants.delete(1);
    expect(await api.plants.list()).toEqual([{ name: 'b' }]);
    expect(fake.requests.filter((request) => request.method === 'GET').map((request) => request.status)).toEqual([
      200, 304, 200, 200,
    ]);
  });
});

describe('the operations it answers', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('answers every operation of the contract through the service’s own handler of it', async () => {
    const spies = Object.fromEntries(
      OPERATIONS.map((operation) => [operation.operationId, vi.spyOn(handlers, operation.operationId as OperationId)]),
    );
    const fake = createFakePlantStore();
    const token = fake.createToken({ subject: 'alice' });
    fake.seed('alice', [{ id: 1, name: 'Fern' }]);
    for (const operation of OPERATIONS) {
      const path = operation.path.replace(/\{[^}]+\}/g, '1');
      const answer = await fake.fetch(`${baseUrl}${path}`, {
        method: operation.method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        // A body of the operation's required fields: an integer id, a name.
        ...(operation.body
          ? {
              body: JSON.stringify(
                Object.fromEntries(
                  operation.body.fields
                    .filter((field) => field.required)
                    .map((field) => [field.name, field.type === 'integer' ? 2 : 'Ivy']),
                ),
              ),
            }
          : {}),
      });
      expect(answer.status, `${operation.operationId} answered ${answer.status}`).toBeLessThan(300);
      expect(spies[operation.operationId], operation.operationId).toHaveBeenCalledOnce();
    }
  });

  it('gives the handler the checked input, and answers what the handler answers, its refusals included', async () => {
    const fake = createFakePlantStore();
    const token = fake.createToken({ subject: 'alice', scopes: ['write'] });
    const post = (body: string) =>
      fake.fetch(`${baseUrl}/plants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': 'k' },
        body,
      });
    const createPlant = vi.spyOn(handlers, 'createPlant');
    expect((await post('{"id":9007199254740993,"name":"Odd"}')).status).toBe(200);
    expect(createPlant.mock.calls[0]?.[0]).toMatchObject({
      principal: { subject: 'alice', scopes: ['write'] },
      body: { id: 9007199254740993n, name: 'Odd' },
      headers: { 'idempotency-key': 'k' },
      path: '/plants',
    });
    createPlant.mockRejectedValueOnce(new ApiError(409, 'said by the handler', { 'retry-after': '7' }));
    const refused = await post('{"id":2,"name":"Ivy"}');
    expect([refused.status, refused.headers.get('retry-after'), await refused.json()]).toEqual([
      409,
      '7',
      { error: 409, message: 'said by the handler' },
    ]);
    // The 409 for a taken id is the handler's own, word for word.
    const taken = await fake.fetch(`${baseUrl}/plants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{"id":9007199254740993,"name":"Again"}',
    });
    const thrown = await (createPlant.mock.results.at(-1)!.value as Promise<unknown>).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(thrown).toBeInstanceOf(ApiError);
    expect(await taken.json()).toEqual({
      error: 409,
      message: (thrown as ApiError).message,
    });
    expect((thrown as ApiError).message).toBe(
      'a plant with id 9007199254740993 already exists; choose another id or delete that plant first',
    );
  });
});
