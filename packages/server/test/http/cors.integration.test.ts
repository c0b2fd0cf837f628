// CORS lets browser apps send their W3C trace context and request id (the SDK's traceContextMiddleware).
import { createTestApp, type TestApp } from '@plant-store/test-kit';
import { afterAll, beforeAll, expect, it } from 'vitest';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: { CORS_ORIGINS: 'https://app.example.com' } });
});
afterAll(() => t.close());

it('allows traceparent, tracestate and x-request-id in a preflight', async () => {
  const answer = await t.app.inject({
    method: 'OPTIONS',
    url: '/plants',
    headers: {
      origin: 'https://app.example.com',
      'access-control-request-method': 'GET',
      'access-control-request-headers': 'authorization, traceparent, tracestate, x-request-id',
    },
  });
  expect(answer.statusCode).toBe(204);
  const allowed = String(answer.headers['access-control-allow-headers']).toLowerCase().split(/,\s*/);
  expect(allowed).toEqual(expect.arrayContaining(['authorization', 'traceparent', 'tracestate', 'x-request-id']));
});
