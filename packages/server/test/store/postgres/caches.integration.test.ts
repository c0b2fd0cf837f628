// The PostgreSQL store's caches and group commit, on the machine's PostgreSQL: pages answered from memory while their
// owner's version stands (another instance's write is in the next read, feed or no feed), tokens while the change
// feed is live and invalidated by other instances' NOTIFYs; concurrent creates committed together in one transaction
// with exact conflicts.
import { createTestDatabase, POSTGRES_URL, type TestDatabase, waitFor } from '@plant-store/test-kit';
import { type ListenBlockingProxy, startListenBlockingProxy } from '@plant-store/test-kit/listen-blocking-proxy';
import { pageText } from '@plant-store/test-kit/page-text';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticateToken, issueToken } from '../../../src/auth/tokens.js';
import { openStore } from '../../../src/store/open-store.js';
import type { Store } from '../../../src/store/store.js';

const database: TestDatabase = createTestDatabase('postgres');
const schema = database.schema ?? '';
let proxy: ListenBlockingProxy;
let direct: pg.Client;
/** `a` reaches PostgreSQL through the proxy (its feed can be cut); `b` is another instance on the same schema. */
let a: Store;
let b: Store;

const names = async (store: Store, owner: string) =>
  (JSON.parse(pageText(await store.plants.list(owner, { limit: 100 }))) as { name: string }[]).map((p) => p.name);
/** A change made behind every instance's back: no NOTIFY, as a lost notification would leave it. */
const sneakIn = (owner: string, id: number, name: string) =>
  direct.query(`INSERT INTO ${schema}.plants (owner, id, name) VALUES ($1, $2, $3)`, [owner, id, name]);

beforeAll(async () => {
  proxy = await startListenBlockingProxy();
  a = await openStore(proxy.url(schema));
  await a.migrate();
  b = await openStore(database.url);
  direct = new pg.Client({ connectionString: POSTGRES_URL });
  await direct.connect();
});
afterAll(async () => {
  await a.close();
  await b.close();
  await direct.end();
  await proxy.close();
  await database.drop();
});

let sneaked = 1000;
/** Waits until `owner`'s first page is served from a's cache: a change made behind its back stays unseen. */
async function waitUntilCached(owner: string): Promise<void> {
  await waitFor(`a cached page of ${owner}`, async () => {
    const before = await names(a, owner);
    await sneakIn(owner, sneaked++, 'hidden');
    return (await names(a, owner)).length === before.length;
  });
}

describe('PostgreSQL caches', () => {
  it('answers a page from memory while its owner’s version stands, and another instance’s write in the very next list', async () => {
    expect(await a.plants.create('cache-1', { id: 1n, name: 'one' })).toBe(true);
    await waitUntilCached('cache-1');
    // b's create moves the owner's version in its own transaction: a's next read checks it before any NOTIFY counts.
    expect(await b.plants.create('cache-1', { id: 2n, name: 'two' })).toBe(true);
    expect(await names(a, 'cache-1')).toContain('two');
    expect(await b.plants.delete('cache-1', 2n)).toBe(true);
    expect(await names(a, 'cache-1')).not.toContain('two');
  });

  it('sees a token revoked through another instance once the feed brings the notification', async () => {
    const { token, record } = await issueToken(b.tokens, { subject: 'revoked-elsewhere' });
    // Cached: a revocation written behind a's back (no NOTIFY) is not seen, once a's feed is live. Each try takes a new
    // token: should the feed turn live between a try's two checks, a caches the record it read after the revocation,
    // and no later try with that token could pass.
    await waitFor('a cached token', async () => {
      const other = await issueToken(b.tokens, { subject: 'revoked-behind-its-back' });
      await authenticateToken(a.tokens, other.token);
      await direct.query(`UPDATE ${schema}.tokens SET revoked_at = now() WHERE id = $1`, [other.record.id]);
      return (await authenticateToken(a.tokens, other.token)).ok;
    });
    expect((await authenticateToken(a.tokens, token)).ok).toBe(true);
    expect(await b.tokens.revoke(record.id, new Date())).toBe(true);
    await waitFor('a to see the revocation', async () => !(await authenticateToken(a.tokens, token)).ok);
  });

  it('keeps its pages correct while notifications are lost: every write is in the very next list', async () => {
    expect(await a.plants.create('down-1', { id: 1n, name: 'before' })).toBe(true);
    await waitUntilCached('down-1');
    proxy.dropNotifications(true);
    try {
      // b's NOTIFYs do not reach a now (its feed has not noticed yet); the owner's version does.
      for (let id = 2; id <= 6; id++) {
        expect(await b.plants.create('down-1', { id: BigInt(id), name: `while down ${id}` })).toBe(true);
        expect(await names(a, 'down-1')).toContain(`while down ${id}`);
      }
      expect(await b.plants.delete('down-1', 2n)).toBe(true);
      expect(await names(a, 'down-1')).not.toContain('while down 2');
    } finally {
      proxy.dropNotifications(false);
    }
    await waitUntilCached('down-1');
  });

  it('lists a page it holds nothing of in one statement, without the barrier’s check, and still sees every write', async () => {
    const checks = proxy.countSent('owner_versions WHERE owner = ANY');
    proxy.dropNotifications(true);
    try {
      // Nothing of cold-1 is cached in a: its first list reads the database, b's write included, with no check.
      expect(await b.plants.create('cold-1', { id: 1n, name: 'one' })).toBe(true);
      expect(await names(a, 'cold-1')).toEqual(['one']);
      expect(checks()).toBe(0);
      // Now the page is cached (and no notification frees it): the next list checks, and sees b's second write.
      expect(await b.plants.create('cold-1', { id: 2n, name: 'two' })).toBe(true);
      expect(await names(a, 'cold-1')).toEqual(['one', 'two']);
      expect(checks()).toBe(1);
    } finally {
      proxy.dropNotifications(false);
    }
  });
});

describe('PostgreSQL group commit', () => {
  it('commits concurrent creates in one transaction, each answered after the commit', async () => {
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) => a.plants.create('batch-1', { id: BigInt(i), name: `p${i}` })),
    );
    expect(results.every(Boolean)).toBe(true);
    const { rows } = await direct.query(
      `SELECT count(*)::int AS n, count(DISTINCT xmin::text)::int AS transactions FROM ${schema}.plants WHERE owner = 'batch-1'`,
    );
    expect(rows[0]).toEqual({ n: 100, transactions: 1 });
  });

  it('keeps conflicts exact per row, within a batch and against stored rows', async () => {
    expect(await a.plants.create('batch-2', { id: 1n, name: 'stored' })).toBe(true);
    const results = await Promise.all([
      a.plants.create('batch-2', { id: 1n, name: 'again' }),
      a.plants.create('batch-2', { id: 2n, name: 'first' }),
      a.plants.create('batch-2', { id: 2n, name: 'second' }),
      a.plants.create('batch-3', { id: 2n, name: 'other owner' }),
    ]);
    expect(results).toEqual([false, true, false, true]);
    expect(await names(a, 'batch-2')).toEqual(['stored', 'first']);
  });
});
