// The call's deadline and the caller's signal over a real socket: a raw node:http server sends the status and
// headers, the first bytes of the body, and then nothing; every method must reject at the deadline (or the abort).
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { outcomeWithin } from '@plant-store/test-kit/wait';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPlantStoreClient,
  PlantStoreAbortError,
  type PlantStoreClient,
  PlantStoreTimeoutError,
} from '../src/index.js';

let server: Server;
let baseUrl: string;
const stalledResponses = new Set<ServerResponse>();

beforeAll(async () => {
  server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://x');
    // The first page of a walk is whole, with a Link to a second page that stalls.
    if (request.method === 'GET' && !url.searchParams.has('cursor') && url.searchParams.get('limit') === '1') {
      response.writeHead(200, { 'content-type': 'application/json', link: '</plants?limit=1&cursor=c1>; rel="next"' });
      response.end('[{"name":"a"}]');
      return;
    }
    // A delete's refusal stalls in its Error body (a 204 has none); the others in a 200's.
    const status = request.method === 'DELETE' ? 404 : 200;
    response.writeHead(status, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    response.write(status === 200 ? '[{"name":' : '{"error":');
    stalledResponses.add(response);
    request.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const response of stalledResponses) response.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const calls: Array<[string, (api: PlantStoreClient, signal?: AbortSignal) => Promise<unknown>]> = [
  ['list', (api, signal) => api.plants.list({}, { signal })],
  ['create', (api, signal) => api.plants.create({ id: 9007199254740993n, name: 'a' }, { signal })],
  ['delete', (api, signal) => api.plants.delete(1, { signal })],
  [
    'listAll',
    async (api, signal) => {
      for await (const _plant of api.plants.listAll({ pageSize: 1 }, { signal })) {
        // The first page's plant comes; the second page's body never ends.
      }
    },
  ],
];

describe('a server that stalls the body after its headers', () => {
  it.each(calls)('%s rejects with PlantStoreTimeoutError at timeoutMs', async (_name, call) => {
    const api = createPlantStoreClient({ baseUrl, token: 't', timeoutMs: 300, retry: { maxRetries: 0 } });
    const started = performance.now();
    const error = await outcomeWithin(call(api), 5_000);
    expect(error).toBeInstanceOf(PlantStoreTimeoutError);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
  });

  it.each(calls)('%s rejects with PlantStoreAbortError when the signal aborts', async (_name, call) => {
    const api = createPlantStoreClient({ baseUrl, token: 't', timeoutMs: 60_000, retry: { maxRetries: 0 } });
    const error = await outcomeWithin(call(api, AbortSignal.timeout(300)), 5_000);
    expect(error).toBeInstanceOf(PlantStoreAbortError);
    expect((error as Error).cause).toBeInstanceOf(DOMException);
  });
});
