// The SDK's side of tracing and request ids: traceContextMiddleware sends the caller's W3C traceparent (and
// tracestate) with no tracing library in the SDK; every answer's x-request-id is readable, and errors without an
// answer (connection, timeout) carry the request id they were sent with.

import { json, scriptedFetch } from '@plant-store/test-kit/scripted-fetch';
import { describe, expect, it } from 'vitest';
import {
  createPlantStoreClient,
  type Middleware,
  PlantStoreConnectionError,
  PlantStoreTimeoutError,
  type TraceContextHeaders,
  traceContextMiddleware,
} from '../src/index.js';

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

function client(fetch: (request: Request) => Promise<Response>, middleware: Middleware[], timeoutMs = 10_000) {
  return createPlantStoreClient({
    baseUrl: 'http://plants.test',
    token: 'secret',
    fetch,
    middleware,
    timeoutMs,
    retry: { maxRetries: 0 },
  });
}

describe('traceContextMiddleware', () => {
  it('sends the current traceparent and tracestate, asked per request', async () => {
    const { fetch, requests } = scriptedFetch(json(200, []), json(200, []));
    let current: TraceContextHeaders = { traceparent: TRACEPARENT, tracestate: 'vendor=1' };
    const api = client(fetch, [traceContextMiddleware(() => current)]);
    await api.plants.list();
    current = { traceparent: TRACEPARENT.replace('b7ad', 'c7ad') };
    await api.plants.list();
    expect(requests.map((r) => [r.headers.get('traceparent'), r.headers.get('tracestate')])).toEqual([
      [TRACEPARENT, 'vendor=1'],
      [TRACEPARENT.replace('b7ad', 'c7ad'), null],
    ]);
  });

  it.each([
    ['no context', undefined],
    ['no traceparent', { tracestate: 'vendor=1' }],
    ['a malformed traceparent', { traceparent: '00-abc-def-01', tracestate: 'vendor=1' }],
    ['an all-zero trace id', { traceparent: `00-${'0'.repeat(32)}-b7ad6b7169203331-01` }],
    ['an all-zero parent id', { traceparent: `00-0af7651916cd43dd8448eb211c80319c-${'0'.repeat(16)}-01` }],
  ])('sends neither header for %s', async (_case, headers) => {
    const { fetch, requests } = scriptedFetch(json(200, []));
    await client(fetch, [traceContextMiddleware(() => headers)]).plants.list();
    expect(requests[0]!.headers.get('traceparent')).toBeNull();
    expect(requests[0]!.headers.get('tracestate')).toBeNull();
  });

  it("keeps a traceparent the call's own headers carry", async () => {
    const { fetch, requests } = scriptedFetch(json(200, []));
    const own = TRACEPARENT.replace('01', '00');
    await client(fetch, [traceContextMiddleware(() => ({ traceparent: TRACEPARENT }))]).plants.list(
      {},
      { headers: { traceparent: own } },
    );
    expect(requests[0]!.headers.get('traceparent')).toBe(own);
  });
});

describe('request ids', () => {
  const withRequestId: Middleware = {
    onRequest({ request }) {
      request.headers.set('x-request-id', 'call-42');
      return request;
    },
  };

  it('are readable on every answer through middleware', async () => {
    const { fetch } = scriptedFetch(json(200, [], { 'x-request-id': 'server-7' }));
    const seen: (string | null)[] = [];
    const api = client(fetch, [{ onResponse: ({ response }) => void seen.push(response.headers.get('x-request-id')) }]);
    await api.plants.list();
    expect(seen).toEqual(['server-7']);
  });

  it('ride on a connection error: the id the request was sent with', async () => {
    const { fetch } = scriptedFetch(new TypeError('fetch failed'));
    const error = await client(fetch, [withRequestId])
      .plants.list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlantStoreConnectionError);
    expect(error).toMatchObject({ requestId: 'call-42' });
  });

  it('ride on a timeout', async () => {
    const never = () => new Promise<Response>(() => {});
    const error = await client(never, [withRequestId], 20)
      .plants.list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlantStoreTimeoutError);
    expect(error).toMatchObject({ requestId: 'call-42' });
  });

  it('are undefined on an error of a request sent without one', async () => {
    const { fetch } = scriptedFetch(new TypeError('fetch failed'));
    const error = await client(fetch, [])
      .plants.list()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ requestId: undefined });
  });
});
