// The SDK against an injected fetch: requests it sends, errors it throws, retries, timeouts, paging and ids.
import { readFileSync } from 'node:fs';
import { errorBody, json, scriptedFetch } from '@plant-store/test-kit/scripted-fetch';
import { describe, expect, it, vi } from 'vitest';
import {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  createPlantStoreClient,
  InternalServerError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  PlantStoreAbortError,
  type PlantStoreClientOptions,
  PlantStoreConnectionError,
  PlantStoreCursorCycleError,
  PlantStoreError,
  PlantStoreSdkError,
  PlantStoreTimeoutError,
  RateLimitError,
  UnsupportedMediaTypeError,
} from '../src/index.js';

function client(fetch: PlantStoreClientOptions['fetch'], options: Partial<PlantStoreClientOptions> = {}) {
  const sleeps: number[] = [];
  const api = createPlantStoreClient({
    baseUrl: 'http://plants.test/',
    token: 'secret',
    fetch,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0.5,
    ...options,
  });
  return { api, sleeps };
}

describe('requests', () => {
  it('creates with the token and an exact JSON body, and resolves to the plant', async () => {
    const { fetch, requests } = scriptedFetch(json(200, { name: 'Fern', tag: 'green' }));
    const { api } = client(fetch);
    expect(await api.plants.create({ id: 1, name: 'Fern', tag: 'green' })).toEqual({ name: 'Fern', tag: 'green' });
    expect(requests[0]).toMatchObject({ method: 'POST', url: 'http://plants.test/plants' });
    expect(requests[0]!.headers.get('authorization')).toBe('Bearer secret');
    expect(requests[0]!.headers.get('content-type')).toBe('application/json');
    expect(JSON.parse(requests[0]!.body)).toEqual({ id: 1, name: 'Fern', tag: 'green' });
  });

  it('lists with limit and cursor', async () => {
    const { fetch, requests } = scriptedFetch(json(200, [{ name: 'a' }]));
    const { api } = client(fetch);
    expect(await api.plants.list({ limit: 5, cursor: 'abc' })).toEqual([{ name: 'a' }]);
    expect(requests[0]!.url).toBe('http://plants.test/plants?limit=5&cursor=abc');
  });

  it('deletes with 204 and reads no body', async () => {
    const { fetch, requests } = scriptedFetch(new Response(null, { status: 204 }));
    const { api } = client(fetch);
    await expect(api.plants.delete(7)).resolves.toBeUndefined();
    expect(requests[0]).toMatchObject({ method: 'DELETE', url: 'http://plants.test/plants/7' });
  });

  it('calls a token function before every request, sync or async', async () => {
    let n = 0;
    const { fetch, requests } = scriptedFetch(json(200, []), json(200, []));
    const { api } = client(fetch, { token: async () => `t${++n}` });
    await api.plants.list();
    await api.plants.list();
    expect(requests.map((r) => r.headers.get('authorization'))).toEqual(['Bearer t1', 'Bearer t2']);
    const sync = scriptedFetch(json(200, []));
    await client(sync.fetch, { token: () => 'plain' }).api.plants.list();
    expect(sync.requests[0]!.headers.get('authorization')).toBe('Bearer plain');
  });

  it('runs middleware on every request, without showing it the token', async () => {
    const { fetch, requests } = scriptedFetch(json(200, []));
    const seen: string[] = [];
    const { api } = client(fetch, {
      middleware: [
        {
          onRequest({ request }) {
            seen.push(`authorization: ${request.headers.get('authorization')}`);
            request.headers.set('x-request-id', 'from-middleware');
            return request;
          },
          onResponse({ response }) {
            seen.push(`${response.status}`);
          },
        },
      ],
    });
    await api.plants.list();
    expect(requests[0]!.headers.get('x-request-id')).toBe('from-middleware');
    expect(seen).toEqual(['authorization: null', '200']);
    expect(requests[0]!.headers.get('authorization')).toBe('Bearer secret');
  });

  it('sends the client-wide headers with every request', async () => {
    const { fetch, requests } = scriptedFetch(json(200, []), new Response(null, { status: 204 }));
    const { api } = client(fetch, { headers: { 'x-client': 'plant-app/1.2' } });
    await api.plants.list();
    await api.plants.delete(1);
    expect(requests.map((r) => r.headers.get('x-client'))).toEqual(['plant-app/1.2', 'plant-app/1.2']);
  });

  it('keeps the raw openapi-fetch form reachable', async () => {
    const { fetch } = scriptedFetch(errorBody(404, 'no plant'));
    const { api } = client(fetch);
    const { data, error, response } = await api.raw.DELETE('/plants/{id}', { params: { path: { id: 3 } } });
    expect(data).toBeUndefined();
    expect(error).toEqual({ error: 404, message: 'no plant' });
    expect(response.status).toBe(404);
  });
});

describe('int64 ids', () => {
  it('sends 2^63-1 and -2^63 exactly, in the body and in the path', async () => {
    const { fetch, requests } = scriptedFetch(
      json(200, { name: 'max' }),
      json(200, { name: 'min' }),
      new Response(null, { status: 204 }),
      new Response(null, { status: 204 }),
    );
    const { api } = client(fetch);
    await api.plants.create({ id: 9223372036854775807n, name: 'max' });
    await api.plants.create({ id: -9223372036854775808n, name: 'min' });
    await api.plants.delete(9223372036854775807n);
    await api.plants.delete(-9223372036854775808n);
    expect(requests[0]!.body).toBe('{"id":9223372036854775807,"name":"max"}');
    expect(requests[1]!.body).toBe('{"id":-9223372036854775808,"name":"min"}');
    expect(requests[2]!.url).toBe('http://plants.test/plants/9223372036854775807');
    expect(requests[3]!.url).toBe('http://plants.test/plants/-9223372036854775808');
  });

  it('refuses ids it cannot send exactly, before sending anything', async () => {
    const { fetch, requests } = scriptedFetch();
    const { api } = client(fetch);
    await expect(api.plants.create({ id: 2 ** 53 + 2, name: 'x' })).rejects.toThrow(TypeError);
    await expect(api.plants.delete(1.5)).rejects.toThrow('not a safe integer');
    await expect(api.plants.delete(2n ** 63n)).rejects.toThrow('outside the signed 64-bit range');
    expect(requests).toHaveLength(0);
  });

  it('refuses such an id with a rejected promise, never a synchronous throw, as its README says', async () => {
    const { fetch, requests } = scriptedFetch();
    const { api } = client(fetch);
    let pending: Promise<unknown> | undefined;
    expect(() => {
      pending = api.plants.delete(2 ** 60);
    }).not.toThrow();
    await expect(pending).rejects.toThrow(TypeError);
    expect(requests).toHaveLength(0);
    // What the README tells a user about it matches: the promise rejects; nothing says "thrown".
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
    expect(readme).toContain("the call's promise rejects with a `TypeError` and nothing is sent");
    expect(readme).not.toMatch(/TypeError`?,? thrown/);
  });

  it('checks ids on the raw client too, in the body and in the path', async () => {
    const { fetch, requests } = scriptedFetch(new Response(null, { status: 204 }));
    const { api } = client(fetch);
    await expect(api.raw.POST('/plants', { body: { id: 2 ** 60, name: 'x' } })).rejects.toThrow(TypeError);
    await expect(api.raw.DELETE('/plants/{id}', { params: { path: { id: 2 ** 60 } } })).rejects.toThrow(
      'not a safe integer',
    );
    expect(requests).toHaveLength(0);
    await api.raw.DELETE('/plants/{id}', { params: { path: { id: -(2n ** 63n) } } });
    expect(requests[0]!.url).toBe('http://plants.test/plants/-9223372036854775808');
  });

  it('leaves a string that looks like the marker alone', async () => {
    const { fetch, requests } = scriptedFetch(json(200, { name: '~int64~x~5' }));
    await client(fetch).api.plants.create({ id: 5n, name: '~int64~x~5' });
    expect(JSON.parse(requests[0]!.body)).toEqual({ id: 5, name: '~int64~x~5' });
  });
});

describe('errors', () => {
  it.each([
    [400, BadRequestError],
    [401, AuthenticationError],
    [403, PermissionDeniedError],
    [404, NotFoundError],
    [409, ConflictError],
    [413, PayloadTooLargeError],
    [415, UnsupportedMediaTypeError],
    [429, RateLimitError],
    [500, InternalServerError],
    [503, InternalServerError],
    [418, PlantStoreError],
  ])('maps %i to %o with status, code, message and request id', async (status, ErrorClass) => {
    const { fetch } = scriptedFetch(errorBody(status, `why ${status}`), errorBody(status), errorBody(status));
    const { api } = client(fetch, { retry: { maxRetries: 0 } });
    const error = await api.plants.create({ id: 1, name: 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ErrorClass);
    expect(error).toBeInstanceOf(PlantStoreError);
    expect(error).toMatchObject({ status, code: status, message: `why ${status}`, requestId: 'req-1' });
    expect((error as PlantStoreError).response.status).toBe(status);
  });

  it('still gives a PlantStoreError for a body that is not JSON', async () => {
    const { fetch } = scriptedFetch(
      new Response('<html>bad gateway</html>', { status: 502, statusText: 'Bad Gateway' }),
    );
    const error = await client(fetch)
      .api.plants.list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error).toMatchObject({ status: 502, code: undefined, message: 'HTTP 502 Bad Gateway: bad gateway' });
  });

  it('reports Retry-After on a RateLimitError', async () => {
    const { fetch } = scriptedFetch(errorBody(429), errorBody(429, 'slow down'));
    const error = await client(fetch, { retry: { maxRetries: 0 } })
      .api.plants.list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    const headed = scriptedFetch(json(429, { error: 429, message: 'slow' }, { 'retry-after': '3' }));
    const withHeader = await client(headed.fetch, { retry: { maxRetries: 0 } })
      .api.plants.list()
      .catch((e: unknown) => e);
    expect((withHeader as RateLimitError).retryAfterMs).toBe(3000);
  });

  it('turns a network failure into PlantStoreConnectionError with the cause', async () => {
    const cause = new TypeError('fetch failed');
    const { fetch } = scriptedFetch(cause, cause, cause);
    const error = await client(fetch)
      .api.plants.list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlantStoreConnectionError);
    expect((error as Error).cause).toBe(cause);
  });

  it('gives a sensible message for an empty error body and no request id', async () => {
    const { fetch } = scriptedFetch(new Response(null, { status: 404, statusText: 'Not Found' }));
    const error = await client(fetch)
      .api.plants.delete(1)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ status: 404, code: undefined, message: 'HTTP 404 Not Found', requestId: undefined });
  });

  it('reads a Retry-After date on a RateLimitError', async () => {
    const date = new Date(Date.now() + 3_600_000).toUTCString();
    const { fetch } = scriptedFetch(json(429, { error: 429, message: 'slow' }, { 'retry-after': date }));
    const error = (await client(fetch)
      .api.plants.list()
      .catch((e: unknown) => e)) as RateLimitError;
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.retryAfterMs).toBeGreaterThan(3_590_000);
    expect(error.retryAfterMs).toBeLessThanOrEqual(3_600_000);
  });

  it('lets onError middleware see a network failure', async () => {
    const seen: unknown[] = [];
    const { fetch } = scriptedFetch(new TypeError('offline'));
    const { api } = client(fetch, {
      retry: { maxRetries: 0 },
      middleware: [
        {
          onError({ error }) {
            seen.push(error);
          },
        },
      ],
    });
    await expect(api.plants.list()).rejects.toBeInstanceOf(PlantStoreConnectionError);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBeInstanceOf(PlantStoreConnectionError);
  });
});

describe('retries', () => {
  it('retries 503 with exponential backoff and full jitter, then succeeds', async () => {
    const { fetch, requests } = scriptedFetch(errorBody(503), errorBody(503), json(200, []));
    const { api, sleeps } = client(fetch, { retry: { maxRetries: 2, baseDelayMs: 100 } });
    expect(await api.plants.list()).toEqual([]);
    expect(requests).toHaveLength(3);
    expect(sleeps).toEqual([50, 100]); // min(max, 100 * 2^n) * random(0.5)
  });

  it('caps backoff at maxDelayMs and gives up after maxRetries', async () => {
    const { fetch, requests } = scriptedFetch(errorBody(503), errorBody(503), errorBody(503), errorBody(503));
    const { api, sleeps } = client(fetch, { retry: { maxRetries: 3, baseDelayMs: 1000, maxDelayMs: 1500 } });
    await expect(api.plants.list()).rejects.toBeInstanceOf(InternalServerError);
    expect(requests).toHaveLength(4);
    expect(sleeps).toEqual([500, 750, 750]);
  });

  it('honours Retry-After in seconds and as an HTTP date, for a create too', async () => {
    const date = new Date(Date.now() + 2_000).toUTCString();
    const { fetch, requests } = scriptedFetch(
      json(429, { error: 429, message: 'x' }, { 'retry-after': '1' }),
      json(429, { error: 429, message: 'x' }, { 'retry-after': date }),
      json(200, { name: 'ok' }),
    );
    const { api, sleeps } = client(fetch);
    await api.plants.create({ id: 1, name: 'ok' });
    expect(requests).toHaveLength(3);
    expect(requests.map((r) => r.body)).toEqual(Array(3).fill('{"id":1,"name":"ok"}'));
    expect(sleeps[0]).toBe(1000);
    expect(sleeps[1]).toBeGreaterThan(500);
    expect(sleeps[1]).toBeLessThanOrEqual(2000);
  });

  it('does not wait for a Retry-After beyond maxDelayMs', async () => {
    const { fetch, requests } = scriptedFetch(json(429, { error: 429, message: 'x' }, { 'retry-after': '3600' }));
    await expect(client(fetch).api.plants.list()).rejects.toBeInstanceOf(RateLimitError);
    expect(requests).toHaveLength(1);
  });

  it('does not retry other errors', async () => {
    const { fetch, requests } = scriptedFetch(errorBody(500), json(200, []));
    await expect(client(fetch).api.plants.list()).rejects.toBeInstanceOf(InternalServerError);
    expect(requests).toHaveLength(1);
  });

  it('retries network failures for list, delete and keyed creates, never for a create without a key unless asked', async () => {
    const down = new TypeError('connection refused');
    const list = scriptedFetch(down, json(200, []));
    expect(await client(list.fetch).api.plants.list()).toEqual([]);
    const del = scriptedFetch(down, new Response(null, { status: 204 }));
    await client(del.fetch).api.plants.delete(1);
    expect(del.requests).toHaveLength(2);

    // A create carries an Idempotency-Key: retried, with the same key.
    const keyed = scriptedFetch(down, json(200, { name: 'x' }));
    expect(await client(keyed.fetch).api.plants.create({ id: 1, name: 'x' })).toEqual({ name: 'x' });
    expect(keyed.requests).toHaveLength(2);
    expect(keyed.requests[1]!.headers.get('idempotency-key')).toBe(keyed.requests[0]!.headers.get('idempotency-key'));

    const create = scriptedFetch(down, json(200, { name: 'x' }));
    await expect(
      client(create.fetch).api.plants.create({ id: 1, name: 'x' }, { idempotencyKey: null }),
    ).rejects.toBeInstanceOf(PlantStoreConnectionError);
    expect(create.requests).toHaveLength(1);
    expect(create.requests[0]!.headers.get('idempotency-key')).toBeNull();

    const optIn = scriptedFetch(down, json(200, { name: 'x' }));
    const { api } = client(optIn.fetch, { retry: { retryCreateOnNetworkError: true } });
    expect(await api.plants.create({ id: 1, name: 'x' }, { idempotencyKey: null })).toEqual({ name: 'x' });
    expect(optIn.requests).toHaveLength(2);
  });

  it('keeps every jittered wait within [0, min(maxDelayMs, baseDelayMs * 2^n)]', async () => {
    const failures = Array.from({ length: 7 }, () => errorBody(503));
    const { fetch } = scriptedFetch(...failures, json(200, []));
    const { api, sleeps } = client(fetch, {
      random: Math.random,
      retry: { maxRetries: 7, baseDelayMs: 100, maxDelayMs: 1_000 },
    });
    await api.plants.list();
    expect(sleeps).toHaveLength(7);
    sleeps.forEach((ms, n) => {
      expect(ms).toBeGreaterThanOrEqual(0);
      expect(ms).toBeLessThanOrEqual(Math.min(1_000, 100 * 2 ** n));
    });
    const edges = scriptedFetch(errorBody(503), errorBody(503), json(200, []));
    const low = client(edges.fetch, { random: () => 0, retry: { baseDelayMs: 100 } });
    await low.api.plants.list();
    expect(low.sleeps).toEqual([0, 0]);
  });

  it('retries at once after a Retry-After date in the past', async () => {
    const past = new Date(Date.now() - 60_000).toUTCString();
    const { fetch } = scriptedFetch(json(503, { error: 503, message: 'x' }, { 'retry-after': past }), json(200, []));
    const { api, sleeps } = client(fetch);
    await api.plants.list();
    expect(sleeps).toEqual([0]);
  });

  it('asks the token function again for each attempt', async () => {
    let n = 0;
    const { fetch, requests } = scriptedFetch(errorBody(429), json(200, []));
    await client(fetch, { token: () => `t${++n}` }).api.plants.list();
    expect(requests.map((r) => r.headers.get('authorization'))).toEqual(['Bearer t1', 'Bearer t2']);
  });

  it('retries a 429 on delete and on the raw client', async () => {
    const del = scriptedFetch(errorBody(429), new Response(null, { status: 204 }));
    await client(del.fetch).api.plants.delete(1);
    expect(del.requests).toHaveLength(2);
    const raw = scriptedFetch(errorBody(503), json(200, [{ name: 'r' }]));
    const { data } = await client(raw.fetch).api.raw.GET('/plants');
    expect(data).toEqual([{ name: 'r' }]);
    expect(raw.requests).toHaveLength(2);
  });
});

describe('timeouts', () => {
  const hang = (request: Request) =>
    new Promise<Response>((_resolve, reject) => {
      request.signal.addEventListener('abort', () => reject(request.signal.reason));
    });

  it('gives up after the client timeout with PlantStoreTimeoutError', async () => {
    const { fetch } = scriptedFetch(hang);
    const error = await client(fetch, { timeoutMs: 20, retry: { maxRetries: 0 } })
      .api.plants.list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlantStoreTimeoutError);
  });

  it('takes a per-call timeout and retries a timed-out read', async () => {
    const { fetch, requests } = scriptedFetch(hang, json(200, [{ name: 'late' }]));
    const { api } = client(fetch, { timeoutMs: 60_000 });
    expect(await api.plants.list({}, { timeoutMs: 20 })).toEqual([{ name: 'late' }]);
    expect(requests).toHaveLength(2);
  });

  it('stops at once when the caller aborts', async () => {
    const { fetch, requests } = scriptedFetch(hang, json(200, []));
    const controller = new AbortController();
    const pending = client(fetch).api.plants.list({}, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('user left')), 10);
    await expect(pending).rejects.toThrow('user left');
    await expect(pending).rejects.toBeInstanceOf(PlantStoreAbortError);
    expect(requests).toHaveLength(1);
  });

  it('defaults to 10 s per attempt', async () => {
    vi.useFakeTimers();
    try {
      const { fetch } = scriptedFetch(hang);
      const pending = client(fetch, { retry: { maxRetries: 0 } })
        .api.plants.list()
        .catch((e: unknown) => e);
      await vi.advanceTimersByTimeAsync(9_999);
      let settled = false;
      void pending.then(() => {
        settled = true;
      });
      await vi.advanceTimersByTimeAsync(0);
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      const error = await pending;
      expect(error).toBeInstanceOf(PlantStoreTimeoutError);
      expect((error as Error).message).toBe('no answer within 10000 ms');
    } finally {
      vi.useRealTimers();
    }
  });

  it('retries a timed-out create with its key, and one sent without a key only when asked', async () => {
    const keyed = scriptedFetch(hang, json(200, { name: 'x' }));
    expect(await client(keyed.fetch, { timeoutMs: 20 }).api.plants.create({ id: 1, name: 'x' })).toEqual({ name: 'x' });
    expect(keyed.requests).toHaveLength(2);
    const once = scriptedFetch(hang, json(200, { name: 'x' }));
    await expect(
      client(once.fetch, { timeoutMs: 20 }).api.plants.create({ id: 1, name: 'x' }, { idempotencyKey: null }),
    ).rejects.toBeInstanceOf(PlantStoreTimeoutError);
    expect(once.requests).toHaveLength(1);
    const optIn = scriptedFetch(hang, json(200, { name: 'x' }));
    const { api } = client(optIn.fetch, { timeoutMs: 20, retry: { retryCreateOnNetworkError: true } });
    expect(await api.plants.create({ id: 1, name: 'x' }, { idempotencyKey: null })).toEqual({ name: 'x' });
    expect(optIn.requests).toHaveLength(2);
  });

  it('keeps a per-call timeout to that call', async () => {
    const { fetch } = scriptedFetch(
      hang,
      () => new Promise<Response>((resolve) => setTimeout(() => resolve(json(200, [])), 50)),
    );
    const { api } = client(fetch, { retry: { maxRetries: 0 } });
    await expect(api.plants.list({}, { timeoutMs: 10 })).rejects.toBeInstanceOf(PlantStoreTimeoutError);
    expect(await api.plants.list()).toEqual([]);
  });

  it('sends nothing when the signal has already fired', async () => {
    const { fetch, requests } = scriptedFetch(json(200, []));
    const error = await client(fetch)
      .api.plants.list({}, { signal: AbortSignal.abort(new Error('too late')) })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlantStoreAbortError);
    expect(error).toBeInstanceOf(PlantStoreSdkError);
    expect(error).toMatchObject({ message: 'too late', cause: new Error('too late') });
    expect(requests).toHaveLength(0);
  });

  it('stops waiting between retries when the caller aborts', async () => {
    const { fetch, requests } = scriptedFetch(json(503, { error: 503, message: 'x' }, { 'retry-after': '5' }));
    const controller = new AbortController();
    // The real sleep, not the test's instant one: the abort must cut the 5 s Retry-After short.
    const pending = createPlantStoreClient({ baseUrl: 'http://plants.test', token: 't', fetch }).plants.list(
      {},
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(new Error('user left')), 20);
    const started = Date.now();
    await expect(pending).rejects.toThrow('user left');
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(requests).toHaveLength(1);
  });
});

describe('paging', () => {
  it('follows Link rel="next" across pages with listAll', async () => {
    const { fetch, requests } = scriptedFetch(
      json(200, [{ name: 'a' }, { name: 'b' }], { link: '</plants?limit=2&cursor=c1>; rel="next"' }),
      json(200, [{ name: 'c' }, { name: 'd' }], { link: '<http://plants.test/plants?limit=2&cursor=c2>; rel="next"' }),
      json(200, [{ name: 'e' }]),
    );
    const names: string[] = [];
    for await (const plant of client(fetch).api.plants.listAll({ pageSize: 2 })) names.push(plant.name);
    expect(names).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(requests.map((r) => r.url)).toEqual([
      'http://plants.test/plants?limit=2',
      'http://plants.test/plants?limit=2&cursor=c1',
      'http://plants.test/plants?limit=2&cursor=c2',
    ]);
  });

  it('gives the next cursor from listPage, and none on the last page', async () => {
    const { fetch } = scriptedFetch(
      json(200, [{ name: 'a' }], { link: '<https://x/a>; rel="prev", </plants?cursor=zz&limit=1>; rel="next"' }),
      json(200, []),
    );
    const { api } = client(fetch);
    expect(await api.plants.listPage({ limit: 1 })).toEqual({ plants: [{ name: 'a' }], nextCursor: 'zz' });
    expect(await api.plants.listPage()).toEqual({ plants: [], nextCursor: undefined });
  });

  it('sends no further request once the loop stops', async () => {
    const { fetch, requests } = scriptedFetch(
      json(200, [{ name: 'a' }, { name: 'b' }], { link: '</plants?limit=2&cursor=c1>; rel="next"' }),
    );
    for await (const plant of client(fetch).api.plants.listAll({ pageSize: 2 })) {
      if (plant.name === 'a') break;
    }
    expect(requests).toHaveLength(1);
  });

  it('ends listAll with PlantStoreCursorCycleError when a cursor comes again (A -> B -> A)', async () => {
    // A service (or a proxy) that links back to an earlier page: without the check the walk never ends.
    const cycle = (count: number) =>
      Array.from({ length: count }, (_, n) =>
        json(200, [{ name: `p${n}` }], { link: `</plants?limit=1&cursor=${n % 2 === 0 ? 'A' : 'B'}>; rel="next"` }),
      );
    const { fetch, requests } = scriptedFetch(...cycle(20));
    const seen: string[] = [];
    const error = await (async () => {
      for await (const plant of client(fetch).api.plants.listAll({ pageSize: 1 })) seen.push(plant.name);
    })().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PlantStoreCursorCycleError);
    expect(error).toBeInstanceOf(PlantStoreSdkError);
    expect(error).toMatchObject({ cursor: 'A', name: 'PlantStoreCursorCycleError' });
    expect((error as Error).message).toBe('paging cycle: cursor A came again');
    // The first page, A's and B's: every item before the repeat is yielded, and A is not asked for again.
    expect(seen).toEqual(['p0', 'p1', 'p2']);
    expect(requests.map((r) => new URL(r.url).searchParams.get('cursor'))).toEqual([null, 'A', 'B']);
  });

  it('ends listAll at a page that links to itself, and lets a later walk follow the same cursors', async () => {
    const self = () => json(200, [{ name: 'a' }], { link: '</plants?cursor=A>; rel="next"' });
    const { fetch } = scriptedFetch(self(), self(), self(), self());
    const api = client(fetch).api;
    const walk = async () => {
      for await (const _plant of api.plants.listAll()) {
        // drained
      }
    };
    await expect(walk()).rejects.toMatchObject({ cursor: 'A' });
    // Cursors are remembered per walk: a second walk starts afresh.
    await expect(walk()).rejects.toBeInstanceOf(PlantStoreCursorCycleError);
  });

  it('sends per-call options with every page of listAll', async () => {
    const { fetch } = scriptedFetch(json(200, [{ name: 'a' }], { link: '</plants?limit=1&cursor=c1>; rel="next"' }));
    const controller = new AbortController();
    const seen: string[] = [];
    const iterator = client(fetch).api.plants.listAll({ pageSize: 1 }, { signal: controller.signal });
    await expect(
      (async () => {
        for await (const plant of iterator) {
          seen.push(plant.name);
          controller.abort(new Error('enough'));
        }
      })(),
    ).rejects.toThrow('enough');
    expect(seen).toEqual(['a']);
  });
});
