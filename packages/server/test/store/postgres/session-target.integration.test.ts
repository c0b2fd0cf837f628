// Where the store's connections land through a failover: a session on a standby (here a read-only session, as the
// proxy makes one) is an unavailable database, answered 503 with Retry-After, never 500; the connection is closed
// and the next one dials afresh; /readyz says only a standby is reachable; and a multi-host URL uses the first host
// that takes writes, following the switch to another.
import { createTestDatabase, type TestDatabase } from '@plant-store/test-kit';
import { call } from '@plant-store/test-kit/contract-call';
import { type ReadOnlyProxy, startReadOnlyProxy } from '@plant-store/test-kit/read-only-proxy';
import { sparePort } from '@plant-store/test-kit/spare-port';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { issueToken } from '../../../src/auth/tokens.js';
import { loadConfig } from '../../../src/config.js';
import { openStore } from '../../../src/store/open-store.js';
import { StoreUnavailableError } from '../../../src/store/store.js';

const database: TestDatabase = createTestDatabase('postgres');
let token: string;
const proxies: ReadOnlyProxy[] = [];
const closing: (() => Promise<unknown>)[] = [];
let next = 1;

beforeAll(async () => {
  const store = await openStore(database.url);
  await store.migrate();
  token = (await issueToken(store.tokens, { subject: 'failover' })).token;
  await store.close();
});
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
  for (const proxy of proxies.splice(0)) await proxy.close();
});
afterAll(() => database.drop());

async function proxy(readOnly: boolean): Promise<ReadOnlyProxy> {
  const started = await startReadOnlyProxy(readOnly);
  proxies.push(started);
  return started;
}

/** The app on DATABASE_URL, with a pool of one connection (so a connection given back is the next one used). */
async function appOn(url: string) {
  const config = loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent' });
  const store = await openStore(config.databaseUrl, { poolSize: 1 });
  const app = await buildApp({ config, store });
  closing.push(
    () => store.close(),
    () => app.close(),
  );
  return {
    store,
    create: () =>
      call(app, { method: 'POST', url: '/plants', path: '/plants', token, body: { id: next++, name: 'p' } }),
    list: () => call(app, { method: 'GET', url: '/plants?limit=1000', path: '/plants', token }),
    ready: () => call(app, { method: 'GET', url: '/readyz' }),
  };
}

const schemaQuery = () => `schema=${database.schema}`;

describe('a session on a read-only server', () => {
  it('answers a write with 503 and Retry-After, closes that connection, and the next one dials afresh', async () => {
    const server = await proxy(true);
    // target_session_attrs=any: the connection is kept, so the write itself meets the read-only transaction (25006).
    const app = await appOn(server.url(`${schemaQuery()}&target_session_attrs=any`));
    const refused = await app.create();
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.json()).toEqual({ error: 503, message: 'the database is unavailable; retry shortly' });
    await expect(app.store.plants.create('owner', { id: 1n, name: 'p' })).rejects.toThrow(StoreUnavailableError);
    // Sessions from now on take writes: a connection given back to the pool would still refuse them.
    server.readOnly = false;
    expect((await app.create()).status).toBe(200);
    expect((await app.create()).status).toBe(200);
  });

  it('is refused for reads too by read-write, with /readyz saying only a standby is reachable, until it takes writes', async () => {
    const server = await proxy(true);
    const app = await appOn(server.url(schemaQuery()));
    const read = await app.list();
    expect(read.status).toBe(503);
    expect(read.headers['retry-after']).toBe('1');
    const ready = await app.ready();
    expect(ready.status).toBe(503);
    expect(ready.json()).toEqual({
      error: 503,
      message: 'the postgres database is not ready: only a standby (read-only) PostgreSQL server is reachable',
    });
    server.readOnly = false;
    expect((await app.list()).status).toBe(200);
    expect((await app.ready()).status).toBe(200);
    expect((await app.create()).status).toBe(200);
  });
});

describe('a multi-host DATABASE_URL', () => {
  it('uses the first host that takes writes, and follows a switch to another without a 500 or a lost write', async () => {
    const one = await proxy(true);
    const two = await proxy(false);
    const dead = await sparePort();
    const path = new URL(database.url).pathname;
    const app = await appOn(
      `postgres://postgres@127.0.0.1:${dead},${one.address},${two.address}${path}?${schemaQuery()}&target_session_attrs=read-write`,
    );
    const acknowledged: number[] = [];
    const write = async () => {
      const answer = await app.create();
      expect([200, 503]).toContain(answer.status);
      if (answer.status === 200) acknowledged.push((answer.json() as { id: number }).id);
      return answer.status;
    };
    expect(await write()).toBe(200);
    const before = one.sessions;
    // The failover: the standby takes writes, the primary turns standby and drops every session.
    one.readOnly = false;
    two.readOnly = true;
    two.dropConnections();
    const statuses: number[] = [];
    while (statuses.at(-1) !== 200 && statuses.length < 10) statuses.push(await write());
    // At most the connection that found the old primary gone, and the one that found it a standby, are refused.
    expect(statuses.filter((status) => status === 503).length).toBeLessThanOrEqual(2);
    expect(statuses.at(-1)).toBe(200);
    expect(one.sessions).toBeGreaterThan(before);
    for (let i = 0; i < 5; i++) expect(await write()).toBe(200);
    const listed = ((await app.list()).json() as { id: number }[]).map((plant) => plant.id);
    expect(listed).toEqual(expect.arrayContaining(acknowledged));
  });
});
