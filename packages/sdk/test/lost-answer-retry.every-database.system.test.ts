// A create whose answer is lost after the service committed it: a TCP proxy in front of two instances of the service
// on one database (two listeners; on PostgreSQL each with its own caches and change feed) forwards the first request
// to instance A and, once A has answered, drops the connection without passing the answer on. The SDK retries with the
// same Idempotency-Key, the retry lands on instance B, and B replays A's answer: the call resolves with the Plant and
// the database holds it once. The same proxy also carries conditional lists across the two instances.
import { connect, createServer, type Server, type Socket } from 'node:net';
import { createTestDatabase, startTestServer, type TestDatabase, type TestServer } from '@plant-store/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlantStoreClient } from '../src/index.js';

let database: TestDatabase;
let a: TestServer;
let b: TestServer;
let proxy: Server;
let proxyUrl: string;
/** Connections so far; the first goes to A, the rest to B. */
let connections = 0;
/** While true, the next connection's answer is swallowed and the connection dropped once A has answered. */
let cutNext = false;
const sockets = new Set<Socket>();

beforeAll(async () => {
  database = createTestDatabase();
  const env = { DATABASE_URL: database.url, RATE_LIMIT_MAX: '0' };
  a = await startTestServer({ env });
  b = await startTestServer({ env });
  proxy = createServer((client) => {
    const target = new URL(connections++ === 0 ? a.url : b.url);
    const cut = cutNext;
    cutNext = false;
    const upstream = connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => sockets.delete(socket));
    }
    client.pipe(upstream);
    upstream.on('data', (chunk) => {
      // The service has committed and answered: the answer is lost on the way back.
      if (cut) {
        client.destroy();
        upstream.destroy();
      } else client.write(chunk);
    });
    upstream.on('end', () => client.end());
    client.on('close', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const address = proxy.address() as { port: number };
  proxyUrl = `http://127.0.0.1:${address.port}`;
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => proxy?.close(resolve));
  await a?.close();
  await b?.close();
  await database?.drop();
});

describe('a create whose answer is lost after the commit', () => {
  it('resolves with the Plant through the retry on another instance, and the plant is stored once', async () => {
    const token = await a.token('alice');
    const retries: string[] = [];
    const api = createPlantStoreClient({
      baseUrl: proxyUrl,
      token,
      retry: { baseDelayMs: 10 },
      onRetry: (info) => retries.push(info.reason.constructor.name),
    });
    cutNext = true;
    expect(await api.plants.create({ id: 9007199254740993n, name: 'Fern', tag: 'lost answer' })).toEqual({
      name: 'Fern',
      tag: 'lost answer',
    });
    expect(retries).toEqual(['PlantStoreConnectionError']);
    expect(connections).toBeGreaterThanOrEqual(2);
    const stored = await b.store.plants.list('alice', { limit: 1000 });
    expect(JSON.parse(new TextDecoder().decode(stored.body))).toEqual([{ name: 'Fern', tag: 'lost answer' }]);
    // The replay came from the kept answer: the same key again says so.
    const again = await fetch(`${b.url}/plants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': 'other' },
      body: '{"id": 9007199254740993, "name": "Fern", "tag": "lost answer"}',
    });
    expect(again.status).toBe(409);
  });

  it('is answered 304 by either instance while nothing changes, and 200 with a new ETag after a create', async () => {
    const token = await a.token('bob');
    const get = (server: TestServer, etag?: string) =>
      fetch(`${server.url}/plants`, {
        headers: { authorization: `Bearer ${token}`, ...(etag ? { 'if-none-match': etag } : {}) },
      });
    await createPlantStoreClient({ baseUrl: a.url, token }).plants.create({ id: 1, name: 'Moss' });
    const first = await get(a);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^W\//);
    expect((await get(b, etag)).status).toBe(304);
    await createPlantStoreClient({ baseUrl: b.url, token }).plants.create({ id: 2, name: 'Ivy' });
    // B wrote it; A hears of it through the database (PostgreSQL: the change feed; SQLite: the shared file).
    let changed: Response | undefined;
    for (let i = 0; i < 100 && changed?.status !== 200; i++) {
      changed = await get(a, etag);
      if (changed.status !== 200) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(changed?.status).toBe(200);
    expect(changed?.headers.get('etag')).not.toBe(etag);
    expect(await changed?.json()).toEqual([{ name: 'Moss' }, { name: 'Ivy' }]);
  });
});
