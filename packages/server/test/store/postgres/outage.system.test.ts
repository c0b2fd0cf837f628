// Losing PostgreSQL: answers become 503 in the Error shape (never a crash or a 500), readiness says so,
// and the service recovers by itself when the database is back. A loopback TCP proxy plays the network.
import { randomBytes } from 'node:crypto';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { POSTGRES_URL } from '@plant-store/test-kit';
import { call } from '@plant-store/test-kit/contract-call';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { issueToken } from '../../../src/auth/tokens.js';
import { loadConfig } from '../../../src/config.js';
import { openStore } from '../../../src/store/open-store.js';
import type { Store } from '../../../src/store/store.js';

const schema = `test_${randomBytes(6).toString('hex')}`;
const sockets = new Set<Socket>();
let proxy: Server | undefined;
let proxyPort = 0;

async function proxyUp(): Promise<void> {
  const target = new URL(POSTGRES_URL);
  proxy = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {});
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => proxy!.listen(proxyPort, '127.0.0.1', resolve));
  proxyPort = (proxy.address() as { port: number }).port;
}

async function proxyDown(): Promise<void> {
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => proxy!.close(() => resolve()));
}

let store: Store;
let app: Awaited<ReturnType<typeof buildApp>>;
let token: string;

beforeAll(async () => {
  await proxyUp();
  const url = `postgres://postgres@127.0.0.1:${proxyPort}${new URL(POSTGRES_URL).pathname}?schema=${schema}`;
  const config = loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent' });
  store = await openStore(config.databaseUrl, { poolSize: 4 });
  await store.migrate();
  token = (await issueToken(store.tokens, { subject: 'outage' })).token;
  app = await buildApp({ config, store });
});

afterAll(async () => {
  await app.close();
  await store.close();
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.end();
  proxy?.close();
});

const list = () => call(app, { method: 'GET', url: '/plants', path: '/plants', token });

it('answers 503 while the database is gone and recovers when it returns', async () => {
  expect((await list()).status).toBe(200);

  await proxyDown();
  const down = await list();
  expect(down.status).toBe(503);
  expect(down.json()).toEqual({ error: 503, message: 'the database is unavailable; retry shortly' });
  expect(down.headers['retry-after']).toBe('1');
  const create = await call(app, {
    method: 'POST',
    url: '/plants',
    path: '/plants',
    token,
    body: { id: 1, name: 'x' },
  });
  expect(create.status).toBe(503);
  expect((await call(app, { method: 'GET', url: '/readyz' })).status).toBe(503);

  await proxyUp();
  let recovered = await list();
  for (let attempt = 0; attempt < 20 && recovered.status !== 200; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    recovered = await list();
  }
  expect(recovered.status).toBe(200);
  expect((await call(app, { method: 'GET', url: '/readyz' })).status).toBe(200);
}, 30_000);
