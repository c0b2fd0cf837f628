// The SDK's safe retries of creates, against an injected fetch: every create carries a fresh Idempotency-Key (or the
// caller's), and a create whose answer was lost (connection error, timeout, 5xx, 429, a 409 while the key is in
// flight) is sent again with the same key; the service's replay resolves the call with the Plant.

import { errorBody, json, scriptedFetch } from '@plant-store/test-kit/scripted-fetch';
import { describe, expect, it } from 'vitest';
import {
  ConflictError,
  createPlantStoreClient,
  InternalServerError,
  type PlantStoreClientOptions,
} from '../src/index.js';

function client(fetch: PlantStoreClientOptions['fetch'], options: Partial<PlantStoreClientOptions> = {}) {
  return createPlantStoreClient({
    baseUrl: 'http://plants.test',
    token: 'secret',
    fetch,
    sleep: async () => {},
    random: () => 0.5,
    ...options,
  });
}

const keyOf = (request: { headers: Headers }) => request.headers.get('idempotency-key');

describe('Idempotency-Key on creates', () => {
  it('sends a fresh key with every create', async () => {
    const { fetch, requests } = scriptedFetch(json(200, { name: 'a' }), json(200, { name: 'b' }));
    const api = client(fetch);
    await api.plants.create({ id: 1, name: 'a' });
    await api.plants.create({ id: 2, name: 'b' });
    expect(keyOf(requests[0]!)).toMatch(/^[!-~]{16,255}$/);
    expect(keyOf(requests[1]!)).toMatch(/^[!-~]{16,255}$/);
    expect(keyOf(requests[0]!)).not.toBe(keyOf(requests[1]!));
  });

  it('sends the key the caller gives', async () => {
    const { fetch, requests } = scriptedFetch(json(200, { name: 'a' }));
    await client(fetch).plants.create({ id: 1, name: 'a' }, { idempotencyKey: 'order-42' });
    expect(keyOf(requests[0]!)).toBe('order-42');
  });

  it('makes keys without randomUUID too (browsers outside a secure context)', async () => {
    const original = globalThis.crypto.randomUUID;
    Object.defineProperty(globalThis.crypto, 'randomUUID', { value: undefined, configurable: true });
    try {
      const { fetch, requests } = scriptedFetch(json(200, { name: 'a' }));
      await client(fetch).plants.create({ id: 1, name: 'a' });
      expect(keyOf(requests[0]!)).toMatch(/^[0-9a-f]{32}$/);
    } finally {
      Object.defineProperty(globalThis.crypto, 'randomUUID', { value: original, configurable: true });
    }
  });

  it.each([
    ['a dropped connection', () => new TypeError('socket hang up')],
    ['a 500', () => errorBody(500)],
    ['a 502 from a proxy', () => new Response('<html>bad gateway</html>', { status: 502 })],
    ['a 504', () => errorBody(504)],
    ['a 429', () => json(429, { error: 429, message: 'slow down' }, { 'retry-after': '0' })],
    ['a 409 while the key is in flight', () => json(409, { error: 409, message: 'in flight' }, { 'retry-after': '1' })],
  ])('retries after %s with the same key, and resolves with the replayed Plant', async (_case, failure) => {
    const { fetch, requests } = scriptedFetch(
      failure(),
      json(200, { name: 'Fern' }, { 'idempotent-replayed': 'true' }),
    );
    expect(await client(fetch).plants.create({ id: 1, name: 'Fern' })).toEqual({ name: 'Fern' });
    expect(requests).toHaveLength(2);
    expect(keyOf(requests[1]!)).toBe(keyOf(requests[0]!));
    expect(requests[1]!.body).toBe(requests[0]!.body);
  });

  it('does not retry a 409 for a taken id (no Retry-After), nor a 422', async () => {
    const taken = scriptedFetch(errorBody(409), json(200, { name: 'x' }));
    await expect(client(taken.fetch).plants.create({ id: 1, name: 'x' })).rejects.toBeInstanceOf(ConflictError);
    expect(taken.requests).toHaveLength(1);
    const reused = scriptedFetch(errorBody(422), json(200, { name: 'x' }));
    await expect(client(reused.fetch).plants.create({ id: 1, name: 'x' })).rejects.toMatchObject({ status: 422 });
    expect(reused.requests).toHaveLength(1);
  });

  it('gives up after maxRetries with the last answer', async () => {
    const { fetch, requests } = scriptedFetch(errorBody(500), errorBody(500), errorBody(500));
    await expect(client(fetch).plants.create({ id: 1, name: 'x' })).rejects.toBeInstanceOf(InternalServerError);
    expect(requests).toHaveLength(3);
    expect(new Set(requests.map(keyOf)).size).toBe(1);
  });

  it('leaves a create sent without a key to the old rules: no retry on 500', async () => {
    const { fetch, requests } = scriptedFetch(errorBody(500), json(200, { name: 'x' }));
    await expect(client(fetch).plants.create({ id: 1, name: 'x' }, { idempotencyKey: null })).rejects.toBeInstanceOf(
      InternalServerError,
    );
    expect(requests).toHaveLength(1);
  });
});
