// The SDK end to end, twice: against the real service over a real socket on a real database, and against the testing
// kit's in-memory fake (@plant-store/sdk/testing). The same tests must pass on both: that is what makes the fake
// trustworthy for the apps that test against it. Every operation and error status.

import { startTestServer } from '@plant-store/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  createPlantStoreClient,
  NotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  PlantStoreConnectionError,
  RateLimitError,
  UnsupportedMediaTypeError,
} from '../src/index.js';
import { createFakePlantStore } from '../src/testing/index.js';

/** What the suite runs against: where, through which fetch, and how to get tokens and a rate-limited twin. */
interface Target {
  url: string;
  /** undefined: the global fetch (the real service). */
  fetch: ((request: Request) => Promise<Response>) | undefined;
  token(subject: string, scopes?: Array<'read' | 'write'>): Promise<string>;
  /** The same kind of target, limited to `max` requests per subject per window. */
  limited(max: number, windowMs: number): Promise<Target & { close(): Promise<void> }>;
  close(): Promise<void>;
}

async function realService(env: Record<string, string> = { RATE_LIMIT_MAX: '0' }): Promise<Target> {
  const server = await startTestServer({ env });
  return {
    url: server.url,
    fetch: undefined,
    token: (subject, scopes) => server.token(subject, scopes),
    limited: (max, windowMs) =>
      realService({ RATE_LIMIT_MAX: String(max), RATE_LIMIT_WINDOW_MS: String(windowMs) }) as Promise<
        Target & { close(): Promise<void> }
      >,
    close: () => server.close(),
  };
}

function fakeService(rateLimit?: { max: number; windowMs: number }): Target {
  const fake = createFakePlantStore(rateLimit ? { rateLimit } : {});
  return {
    url: 'http://plant-store.test',
    fetch: fake.fetch,
    token: async (subject, scopes) => fake.createToken({ subject, ...(scopes ? { scopes } : {}) }),
    limited: async (max, windowMs) => fakeService({ max, windowMs }),
    close: async () => fake.reset(),
  };
}

const TARGETS: Array<[string, () => Promise<Target>]> = [
  ['the real service', () => realService()],
  ['the testing kit’s fake', async () => fakeService()],
];

describe.each(TARGETS)('SDK end to end against %s', (_name, start) => {
  let server: Target;
  beforeAll(async () => {
    server = await start();
  });
  afterAll(() => server?.close());

  const options = () => ({ baseUrl: server.url, ...(server.fetch ? { fetch: server.fetch } : {}) });
  const clientFor = (token: string) => createPlantStoreClient({ ...options(), token });

  it('creates, lists and deletes', async () => {
    const api = clientFor(await server.token('e2e-basic'));
    expect(await api.plants.create({ id: 1, name: 'Fern', tag: 'indoor' })).toEqual({ name: 'Fern', tag: 'indoor' });
    expect(await api.plants.list()).toEqual([{ name: 'Fern', tag: 'indoor' }]);
    await api.plants.delete(1);
    expect(await api.plants.list()).toEqual([]);
  });

  it('round-trips the int64 edges exactly', async () => {
    const api = clientFor(await server.token('e2e-int64'));
    for (const id of [9223372036854775807n, -9223372036854775808n, 9007199254740993n, 9007199254740992n]) {
      await api.plants.create({ id, name: `n${id}` });
    }
    expect((await api.plants.list()).map((p) => p.name)).toEqual([
      'n-9223372036854775808',
      'n9007199254740992',
      'n9007199254740993',
      'n9223372036854775807',
    ]);
    await api.plants.delete(9007199254740993n);
    await expect(api.plants.delete(9007199254740993n)).rejects.toBeInstanceOf(NotFoundError);
    expect((await api.plants.list()).map((p) => p.name)).toContain('n9007199254740992');
  });

  it('follows paging through listAll', async () => {
    const api = clientFor(await server.token('e2e-paging'));
    for (let id = 25; id >= 1; id--) await api.plants.create({ id, name: `p${id}` });
    const names: string[] = [];
    for await (const plant of api.plants.listAll({ pageSize: 10 })) names.push(plant.name);
    expect(names).toEqual(Array.from({ length: 25 }, (_, i) => `p${i + 1}`));
  });

  it('throws the documented error classes', async () => {
    const token = await server.token('e2e-errors');
    const api = clientFor(token);
    await expect(api.plants.create({ id: 1, name: 'x'.repeat(201) })).rejects.toMatchObject({
      constructor: BadRequestError,
      status: 400,
      message: expect.stringContaining('"name"'),
      body: { details: [{ location: 'body', field: 'name', rule: 'maxLength', limit: 200 }] },
    });
    await expect(clientFor('pst_wrong').plants.list()).rejects.toBeInstanceOf(AuthenticationError);
    const reader = clientFor(await server.token('e2e-reader', ['read']));
    await expect(reader.plants.create({ id: 1, name: 'x' })).rejects.toBeInstanceOf(PermissionDeniedError);
    await expect(api.plants.delete(404)).rejects.toMatchObject({
      constructor: NotFoundError,
      requestId: expect.any(String),
    });
    await api.plants.create({ id: 409, name: 'x' });
    await expect(api.plants.create({ id: 409, name: 'x' })).rejects.toBeInstanceOf(ConflictError);
    await expect(api.plants.create({ id: 1, name: 'x', tag: 't'.repeat(20_000) })).rejects.toBeInstanceOf(
      PayloadTooLargeError,
    );
  });

  it('surfaces 429 with Retry-After once retries are spent', async () => {
    const limited = await server.limited(2, 60_000);
    try {
      const api = createPlantStoreClient({
        baseUrl: limited.url,
        token: await limited.token('e2e-limited'),
        ...(limited.fetch ? { fetch: limited.fetch } : {}),
      });
      await api.plants.list();
      await api.plants.list();
      const error = await api.plants.list().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RateLimitError);
      expect((error as RateLimitError).retryAfterMs).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });

  it('refuses a body that middleware turned into text/plain with 415', async () => {
    const api = createPlantStoreClient({
      ...options(),
      token: await server.token('e2e-415'),
      middleware: [
        {
          onRequest({ request }) {
            request.headers.set('content-type', 'text/plain');
            return request;
          },
        },
      ],
    });
    await expect(api.plants.create({ id: 1, name: 'x' })).rejects.toMatchObject({
      constructor: UnsupportedMediaTypeError,
      status: 415,
      code: 415,
    });
  });

  it('answers 401 with a Bearer challenge, and takes an async token function', async () => {
    const error = (await clientFor('pst_wrong')
      .plants.create({ id: 1, name: 'x' })
      .catch((e: unknown) => e)) as AuthenticationError;
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ status: 401, code: 401 });
    expect(error.response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const token = await server.token('e2e-async-token');
    let asked = 0;
    const api = createPlantStoreClient({
      ...options(),
      token: async () => {
        asked++;
        await new Promise((resolve) => setTimeout(resolve, 1));
        return token;
      },
    });
    await api.plants.create({ id: 1, name: 'x' });
    expect(await api.plants.list()).toEqual([{ name: 'x' }]);
    expect(asked).toBe(2);
  });

  it('carries a request id set by middleware through to the error, and fetches 25 plants in 3 pages', async () => {
    const urls: string[] = [];
    const api = createPlantStoreClient({
      ...options(),
      token: await server.token('e2e-middleware'),
      middleware: [
        {
          onRequest({ request }) {
            request.headers.set('x-request-id', `sdk-e2e-${urls.length}`);
            urls.push(request.url);
            return request;
          },
        },
      ],
    });
    const error = await api.plants.delete(12345).catch((e: unknown) => e);
    expect(error).toMatchObject({ constructor: NotFoundError, requestId: 'sdk-e2e-0' });
    for (let id = 1; id <= 25; id++) await api.plants.create({ id, name: `p${id}` });
    urls.length = 0;
    let count = 0;
    for await (const _plant of api.plants.listAll({ pageSize: 10 })) count++;
    expect(count).toBe(25);
    expect(urls).toHaveLength(3);
    expect(urls[0]).toBe(`${server.url}/plants?limit=10`);
    expect(urls[1]).toMatch(/\/plants\?limit=10&cursor=[A-Za-z0-9_-]+$/);
    const last = await api.plants.listPage({ limit: 10, cursor: new URL(urls[2]!).searchParams.get('cursor')! });
    expect(last).toMatchObject({ nextCursor: undefined });
    expect(last.plants).toHaveLength(5);
  });

  it('keeps the raw client’s { data, error, response } form against the real server', async () => {
    const api = clientFor(await server.token('e2e-raw'));
    const created = await api.raw.POST('/plants', { body: { id: 9223372036854775807n, name: 'raw' } });
    expect(created.data).toEqual({ name: 'raw' });
    const again = await api.raw.POST('/plants', { body: { id: 9223372036854775807n, name: 'raw' } });
    expect(again.error).toEqual({ error: 409, message: expect.any(String) });
    expect(again.response.status).toBe(409);
    const deleted = await api.raw.DELETE('/plants/{id}', { params: { path: { id: 9223372036854775807n } } });
    expect(deleted.response.status).toBe(204);
    const listed = await api.raw.GET('/plants', { params: { query: { limit: 1 } } });
    expect(listed.data).toEqual([]);
  });

  it('waits out a short Retry-After and succeeds', async () => {
    const limited = await server.limited(1, 1000);
    try {
      const onTheWire: number[] = [];
      const seen: number[] = [];
      const send = limited.fetch ?? ((request: Request) => fetch(request));
      const api = createPlantStoreClient({
        baseUrl: limited.url,
        token: await limited.token('e2e-retry-after'),
        fetch: async (request) => {
          const response = await send(request);
          onTheWire.push(response.status);
          return response;
        },
        middleware: [
          {
            onResponse({ response }) {
              seen.push(response.status);
            },
          },
        ],
      });
      await api.plants.list();
      expect(await api.plants.list()).toEqual([]);
      // The 429 was waited out and retried inside the transport; middleware sees only the final answer. The second
      // list asks with the first one's ETag: unchanged, it is a 304, answered from the page the SDK kept.
      expect(onTheWire).toEqual([200, 429, 304]);
      expect(seen).toEqual([200, 304]);
    } finally {
      await limited.close();
    }
  });
});

describe('SDK end to end, the real network only', () => {
  it('reports a server that is not there as a connection error', async () => {
    const api = createPlantStoreClient({ baseUrl: 'http://127.0.0.1:1', token: 't', retry: { maxRetries: 0 } });
    await expect(api.plants.list()).rejects.toBeInstanceOf(PlantStoreConnectionError);
  });
});
