// The validating proxy in front of the real service, with the SDK's calls passing through it as a frontend's suite
// would make them: creates (ids beyond 2^53 and int64's largest), pages with Link and ETag/304, HEAD, a 409 and a 404.
// The service keeps the contract, so the proxy sees no violation and exits 0; the ids arrive byte-exact (the
// neighbour id is another plant), which Prism 5.14's proxy broke by re-encoding the body. And the checker's own run
// through it: hundreds of answers, none reported (no false positive), the run's deliberately broken requests reported.
import { INT64_MAX } from '@plant-store/contract';
import { ConflictError, createPlantStoreClient, NotFoundError } from '@plant-store/sdk';
import { startTestServer, type TestServer } from '@plant-store/test-kit';
import { conformance } from '@plant-store/test-kit/conformance-run';
import { startProxyRun } from '@plant-store/test-kit/proxy-run';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProxyReport } from '../../src/proxy/violations.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

describe('plant-store-conformance proxy in front of the service', () => {
  it('sees no violation while the SDK works through it, and passes ids beyond 2^53 exactly', async () => {
    const token = await t.token('proxy-healthy');
    const proxy = await startProxyRun<ProxyReport>(t.url);
    const client = createPlantStoreClient({ baseUrl: proxy.url, token, retry: { maxRetries: 0 } });
    const beyond = 2n ** 53n + 1n;
    await client.plants.create({ id: beyond, name: 'Fern', tag: 'green' });
    await client.plants.create({ id: INT64_MAX, name: 'Giant' });
    await client.plants.create({ id: 1, name: 'Moss' });
    await expect(client.plants.create({ id: 1, name: 'Moss again' })).rejects.toBeInstanceOf(ConflictError);

    const names: string[] = [];
    for await (const plant of client.plants.listAll({ limit: 2 })) names.push(plant.name);
    expect(names).toEqual(['Moss', 'Fern', 'Giant']);
    // The SDK keeps the page's ETag: the second read is a 304.
    expect(await client.plants.list({ limit: 2 })).toHaveLength(2);
    expect(await client.plants.list({ limit: 2 })).toHaveLength(2);
    const head = await fetch(`${proxy.url}/plants?limit=1`, {
      method: 'HEAD',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(head.status).toBe(200);

    // 2^53 is the id JSON.parse would have made of 2^53 + 1: it is no plant of the caller's.
    await expect(client.plants.delete(2n ** 53n)).rejects.toBeInstanceOf(NotFoundError);
    await client.plants.delete(beyond);
    await client.plants.delete(INT64_MAX);
    await client.plants.delete(1);

    const { code, report, output } = await proxy.stop();
    expect(report.violations, output).toEqual([]);
    expect(report.requests).toBe(13);
    expect(code).toBe(0);
    expect(output).toContain('PASSED: no violation of the contract seen.');
  });

  it("finds no fault in the service's answers to the checker's own run, and reports the run's broken requests", async () => {
    // The checker sends hundreds of requests, many broken on purpose (bad bounds, no token, other media types), and
    // every answer the service gives them keeps the contract: the proxy must report the requests, not the answers.
    const [alice, bob, reader] = await Promise.all([
      t.token('proxy-checker-a'),
      t.token('proxy-checker-b'),
      t.token('proxy-checker-r', ['read']),
    ]);
    const proxy = await startProxyRun<ProxyReport>(t.url);
    const args = ['--base-url', proxy.url, '--token', alice, '--second-token', bob, '--read-token', reader];
    const run = await conformance([...args, '--requests', '150', '--seed', '28']);
    expect(run.code, run.output).toBe(0);
    const { code, report } = await proxy.stop();
    expect(code).toBe(1);
    // The served contract (/openapi.json, which the checker reads for its version) is passed through unchecked.
    const answers = report.kinds.filter((kind) => kind.direction === 'response');
    expect(answers).toEqual([]);
    const requests = report.kinds.filter((kind) => kind.direction === 'request').map((kind) => kind.rule);
    for (const rule of ['parameters', 'authorization', 'body', 'content-type']) expect(requests).toContain(rule);
  });
});
