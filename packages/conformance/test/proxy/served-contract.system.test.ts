// The validating proxy passes the contract the service serves (GET and HEAD of /openapi.json) through, byte for byte
// and unchecked: it is the service's document, not an answer of the API, so it is no undeclared path and its 200 is
// held to no operation's answers. Another method there is still an undeclared path.

import { rulesOf, startProxyRun } from '@plant-store/test-kit/proxy-run';
import { type RawUpstream, rawAnswer, startRawUpstream } from '@plant-store/test-kit/raw-upstream';
import { afterEach, describe, expect, it } from 'vitest';
import type { ProxyReport } from '../../src/proxy/violations.js';

const DOCUMENT = '{"openapi":"3.1.0","info":{"title":"Plant Store","version":"1.0.0"},"paths":{}}';

let upstream: RawUpstream | undefined;
afterEach(async () => {
  await upstream?.close();
});

describe('plant-store-conformance proxy and the served contract', () => {
  it('forwards GET and HEAD of /openapi.json unchecked, and reports another method there', async () => {
    upstream = await startRawUpstream((request) =>
      request.method === 'POST'
        ? rawAnswer(404, '{"error":404,"message":"no route"}', { 'content-type': 'application/json' })
        : rawAnswer(200, request.method === 'HEAD' ? '' : DOCUMENT, {
            'content-type': 'application/json; charset=utf-8',
          }),
    );
    const proxy = await startProxyRun<ProxyReport>(upstream.url);
    const got = await fetch(`${proxy.url}/openapi.json`);
    expect([got.status, await got.text()]).toEqual([200, DOCUMENT]);
    expect((await fetch(`${proxy.url}/openapi.json`, { method: 'HEAD' })).status).toBe(200);
    expect((await fetch(`${proxy.url}/openapi.json`, { method: 'POST' })).status).toBe(404);
    const { report } = await proxy.stop();
    expect(upstream.requests.map((request) => `${request.method} ${request.target}`)).toEqual([
      'GET /openapi.json',
      'HEAD /openapi.json',
      'POST /openapi.json',
    ]);
    expect(report.requests).toBe(3);
    expect(rulesOf(report)).toEqual(['request (undeclared) undeclared-path']);
  });
});
