// The SDK against the real service over a real socket, on a real database: every operation and error status.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../server/test/support/test-server.js';
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
} from '../src/index.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ env: { RATE_LIMIT_MAX: '0' } });
});
afterAll(() => server.close());

const clientFor = (token: string) => createPlantStoreClient({ baseUrl: server.url, token });

describe('SDK end to end', () => {
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
    for await (const plant of api.plants.listAll({ limit: 10 })) names.push(plant.name);
    expect(names).toEqual(Array.from({ length: 25 }, (_, i) => `p${i + 1}`));
  });

  it('throws the documented error classes', async () => {
    const token = await server.token('e2e-errors');
    const api = clientFor(token);
    await expect(api.plants.create({ id: 1, name: 'x'.repeat(201) })).rejects.toMatchObject({
      constructor: BadRequestError,
      status: 400,
      message: expect.stringContaining('"name"'),
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
    const limited = await startTestServer({ env: { RATE_LIMIT_MAX: '2', RATE_LIMIT_WINDOW_MS: '60000' } });
    try {
      const api = createPlantStoreClient({ baseUrl: limited.url, token: await limited.token('e2e-limited') });
      await api.plants.list();
      await api.plants.list();
      const error = await api.plants.list().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RateLimitError);
      expect((error as RateLimitError).retryAfterMs).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });

  it('reports a server that is not there as a connection error', async () => {
    const api = createPlantStoreClient({ baseUrl: 'http://127.0.0.1:1', token: 't', retry: { maxRetries: 0 } });
    await expect(api.plants.list()).rejects.toBeInstanceOf(PlantStoreConnectionError);
  });
});
