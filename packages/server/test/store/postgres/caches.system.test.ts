// Two real server processes on one PostgreSQL, each answering from its own caches: a plant created or deleted
// through one is in (or out of) the other's very next list, with its change feed up or down (the read barrier checks
// the owner's version); a token revoked anywhere is refused by every instance once the feed brings the NOTIFY.
import { randomBytes } from 'node:crypto';
import { POSTGRES_URL, waitFor } from '@plant-store/test-kit';
import { type ListenBlockingProxy, startListenBlockingProxy } from '@plant-store/test-kit/listen-blocking-proxy';
import { type ServerProcess, startServerProcess } from '@plant-store/test-kit/server-process';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '../../../src/auth/tokens.js';
import { openStore } from '../../../src/store/open-store.js';
import type { Store } from '../../../src/store/store.js';

const schema = `test_${randomBytes(6).toString('hex')}`;
const url = `${POSTGRES_URL}?schema=${schema}`;
let proxy: ListenBlockingProxy;
let admin: Store;
let direct: pg.Client;
let a: ServerProcess;
let b: ServerProcess;

const get = (server: ServerProcess, token: string) =>
  fetch(`${server.url}/plants?limit=100`, { headers: { authorization: `Bearer ${token}` } });
const names = async (server: ServerProcess, token: string) =>
  ((await (await get(server, token)).json()) as { name: string }[]).map((plant) => plant.name);
const send = (server: ServerProcess, token: string, method: string, path: string, body?: unknown) =>
  fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
let sneaked = 10_000;
/** Waits until b answers `subject`'s page from its cache: a row inserted behind its back (no NOTIFY) stays unseen. */
async function waitUntilCached(server: ServerProcess, token: string, subject: string) {
  await waitFor(`a cached page on ${server.url}`, async () => {
    const before = await names(server, token);
    await direct.query(`INSERT INTO ${schema}.plants (owner, id, name) VALUES ($1, $2, 'hidden')`, [
      subject,
      sneaked++,
    ]);
    return (await names(server, token)).length === before.length;
  });
}

beforeAll(async () => {
  admin = await openStore(url);
  await admin.migrate();
  direct = new pg.Client({ connectionString: POSTGRES_URL });
  await direct.connect();
  proxy = await startListenBlockingProxy();
  const env = { RATE_LIMIT_MAX: '0' };
  [a, b] = await Promise.all([
    startServerProcess({ ...env, DATABASE_URL: url }),
    startServerProcess({ ...env, DATABASE_URL: proxy.url(schema) }),
  ]);
}, 60_000);
afterAll(async () => {
  for (const server of [a, b]) server?.child.kill('SIGTERM');
  await Promise.all([a?.exited, b?.exited]);
  await admin.close();
  await direct.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await direct.end();
  await proxy.close();
});

describe('two instances with caches on one PostgreSQL', () => {
  it("see each other's creates and deletes in the very next request", async () => {
    const { token } = await issueToken(admin.tokens, { subject: 'shared' });
    await waitUntilCached(b, token, 'shared');
    expect((await send(a, token, 'POST', '/plants', { id: 1, name: 'from a' })).status).toBe(200);
    expect(await names(b, token)).toContain('from a');
    await waitUntilCached(b, token, 'shared');
    expect((await send(a, token, 'DELETE', '/plants/1')).status).toBe(204);
    expect(await names(b, token)).not.toContain('from a');
  });

  it('refuse a revoked token on every instance once the feed brings the notification', async () => {
    const { token, record } = await issueToken(admin.tokens, { subject: 'to-revoke' });
    expect((await get(a, token)).status).toBe(200);
    expect((await get(b, token)).status).toBe(200);
    // The CLI's `token revoke` does exactly this: the store's revoke, which NOTIFYs at commit.
    expect(await admin.tokens.revoke(record.id, new Date())).toBe(true);
    await Promise.all(
      [a, b].map((server) =>
        waitFor(`${server.url} to refuse the token`, async () => (await get(server, token)).status === 401),
      ),
    );
  });

  it("see each other's writes in the very next request while the feed is down", async () => {
    const { token } = await issueToken(admin.tokens, { subject: 'feed-down' });
    await waitUntilCached(b, token, 'feed-down');
    proxy.blockListen(true);
    try {
      const stored = async () =>
        (await direct.query(`SELECT count(*)::int AS n FROM ${schema}.plants WHERE owner = 'feed-down'`)).rows[0].n;
      // a's writes NOTIFY, but b hears nothing now: the owner's version moved by each write still reaches it.
      for (let id = 1; id <= 5; id++) {
        expect((await send(a, token, 'POST', '/plants', { id, name: `down ${id}` })).status).toBe(200);
        expect(await names(b, token)).toHaveLength(await stored());
      }
    } finally {
      proxy.blockListen(false);
    }
    await waitUntilCached(b, token, 'feed-down');
  });
});
