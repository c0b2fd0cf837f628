// The testing kit's own controls: tokens and scopes, seed, plantsOf, reset, revokeToken, scripted 429/5xx that the
// SDK retries, a rate limit, and exact int64 ids end to end through the client.
import { describe, expect, it } from 'vitest';
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
    await expect(api.plants.list()).rejects.toMatchObject({ constructor: RateLimitError, retryAfterMs: 60_000 });
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
