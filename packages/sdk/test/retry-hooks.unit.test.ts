// onRetry, per-call maxRetries and headers, which statuses are never retried, and the refresh-on-401 replay.

import { errorBody, json, scriptedFetch } from '@plant-store/test-kit/scripted-fetch';
import { describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  createPlantStoreClient,
  InternalServerError,
  type PlantStoreClientOptions,
  PlantStoreConnectionError,
  PlantStoreError,
  RateLimitError,
  type RetryInfo,
  type TokenContext,
} from '../src/index.js';

function client(fetch: PlantStoreClientOptions['fetch'], options: Partial<PlantStoreClientOptions> = {}) {
  const retries: RetryInfo[] = [];
  const api = createPlantStoreClient({
    baseUrl: 'http://plants.test',
    token: 'secret',
    fetch,
    sleep: async () => {},
    random: () => 0.5,
    onRetry: (info) => retries.push(info),
    ...options,
  });
  return { api, retries };
}

describe('onRetry', () => {
  it('tells the attempt, the wait and the reason before every retry', async () => {
    const { fetch } = scriptedFetch(
      json(429, { error: 429, message: 'slow down' }, { 'retry-after': '4' }),
      new TypeError('fetch failed'),
      errorBody(503),
      json(200, []),
    );
    const { api, retries } = client(fetch, { retry: { maxRetries: 3 } });
    expect(await api.plants.list()).toEqual([]);
    expect(retries.map(({ attempt, delayMs }) => ({ attempt, delayMs }))).toEqual([
      { attempt: 2, delayMs: 4000 },
      { attempt: 3, delayMs: 250 }, // min(8000, 250 * 2^1) * 0.5
      { attempt: 4, delayMs: 500 },
    ]);
    expect(retries[0]!.reason).toBeInstanceOf(RateLimitError);
    expect(retries[0]!.reason).toMatchObject({ status: 429, message: 'slow down', retryAfterMs: 4000 });
    expect(retries[1]!.reason).toBeInstanceOf(PlantStoreConnectionError);
    expect(retries[2]!.reason).toBeInstanceOf(InternalServerError);
    expect(retries[0]).toMatchObject({ method: 'GET', url: 'http://plants.test/plants' });
  });

  it('keeps retrying when onRetry throws', async () => {
    const { fetch, requests } = scriptedFetch(errorBody(503), json(200, []));
    const { api } = client(fetch, {
      onRetry: () => {
        throw new Error('logger down');
      },
    });
    expect(await api.plants.list()).toEqual([]);
    expect(requests).toHaveLength(2);
  });

  it('is not called when nothing is retried', async () => {
    const { fetch } = scriptedFetch(json(200, []));
    const { api, retries } = client(fetch);
    await api.plants.list();
    expect(retries).toEqual([]);
  });
});

describe('per-call options', () => {
  it('takes maxRetries per call, over the client’s', async () => {
    const none = scriptedFetch(errorBody(503), json(200, []));
    await expect(client(none.fetch).api.plants.list({}, { maxRetries: 0 })).rejects.toBeInstanceOf(InternalServerError);
    expect(none.requests).toHaveLength(1);
    const more = scriptedFetch(errorBody(503), errorBody(503), errorBody(503), errorBody(503), json(200, []));
    expect(await client(more.fetch).api.plants.list({}, { maxRetries: 4 })).toEqual([]);
    expect(more.requests).toHaveLength(5);
  });

  it('sends per-call headers on top of the client’s, never over the token', async () => {
    const { fetch, requests } = scriptedFetch(new Response(null, { status: 204 }), json(200, []));
    const { api } = client(fetch, { headers: { 'x-app': 'plants-ui' } });
    await api.plants.delete(1, { headers: { 'x-request-id': 'call-1', authorization: 'Bearer stolen' } });
    await api.plants.list();
    expect(requests[0]!.headers.get('x-request-id')).toBe('call-1');
    expect(requests[0]!.headers.get('x-app')).toBe('plants-ui');
    expect(requests[0]!.headers.get('authorization')).toBe('Bearer secret');
    expect(requests[1]!.headers.get('x-request-id')).toBeNull();
  });
});

describe('statuses never retried', () => {
  it.each([400, 401, 403, 404, 409, 413, 415, 422, 500, 502])('%i is thrown after one request', async (status) => {
    const { fetch, requests } = scriptedFetch(errorBody(status), json(200, []));
    const { api, retries } = client(fetch, { retry: { maxRetries: 5 } });
    await expect(api.plants.list()).rejects.toMatchObject({ status });
    expect(requests).toHaveLength(1);
    expect(retries).toEqual([]);
  });
});

describe('refreshOn401', () => {
  it('asks the token function again with refresh: true and replays once', async () => {
    const asked: TokenContext[] = [];
    const { fetch, requests } = scriptedFetch(errorBody(401), json(200, { name: 'x' }));
    const { api, retries } = client(fetch, {
      refreshOn401: true,
      token: (context) => {
        asked.push(context);
        return context.refresh ? 'fresh' : 'stale';
      },
    });
    expect(await api.plants.create({ id: 1, name: 'x' })).toEqual({ name: 'x' });
    expect(asked).toEqual([{ refresh: false }, { refresh: true }]);
    expect(requests.map((r) => r.headers.get('authorization'))).toEqual(['Bearer stale', 'Bearer fresh']);
    expect(JSON.parse(requests[1]!.body)).toEqual({ id: 1, name: 'x' });
    expect(retries).toMatchObject([{ attempt: 2, delayMs: 0, reason: expect.any(AuthenticationError) }]);
  });

  it('throws the second 401, and does not count the replay against maxRetries', async () => {
    const { fetch, requests } = scriptedFetch(errorBody(401), errorBody(401), json(200, []));
    const { api } = client(fetch, { refreshOn401: true, token: () => 't', retry: { maxRetries: 0 } });
    await expect(api.plants.list()).rejects.toBeInstanceOf(AuthenticationError);
    expect(requests).toHaveLength(2);
  });

  it('is off by default, and needs a token function', async () => {
    const off = scriptedFetch(errorBody(401), json(200, []));
    await expect(client(off.fetch, { token: () => 't' }).api.plants.list()).rejects.toBeInstanceOf(AuthenticationError);
    expect(off.requests).toHaveLength(1);
    const fixed = scriptedFetch(errorBody(401), json(200, []));
    await expect(client(fixed.fetch, { refreshOn401: true }).api.plants.list()).rejects.toBeInstanceOf(PlantStoreError);
    expect(fixed.requests).toHaveLength(1);
  });
});
