// The PostgreSQL store's caches and group commit, on the machine's PostgreSQL: pages and tokens answered from memory
// while the change feed is live, invalidated by other instances' NOTIFYs, never trusted while the feed is down;
// concurrent creates committed together in one transaction with exact conflicts.
import { createTestDatabase, POSTGRES_URL, type TestDatabase, waitFor } from '@plant-store/test-kit';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticateToken, issueToken } from '../../../../src/auth/tokens.js';
import { openStore } from '../../../../src/store/open-store.js';
import type { Store } from '../../../../src/store/store.js';
import { type ListenBlockingProxy, startListenBlockingProxy } from '../../../support/listen-blocking-proxy.js';
import { pageText } from '../../../support/page-text.js';

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
  it('answers a page from memory while the feed is live, and drops it on another instance’s write', async () => {
    expect(await a.plants.create('cache-1', { id: 1n, name: 'one' })).toBe(true);
    await waitUntilCached('cache-1');
    // b's create NOTIFYs at commit: a forgets the owner's pages within the bound.
    expect(await b.plants.create('cache-1', { id: 2n, name: 'two' })).toBe(true);
    const started = Date.now();
    await waitFor('a to see b’s create', async () => (await names(a, 'cache-1')).includes('two'), { timeoutMs: 1000 });
    expect(Date.now() - started).toBeLessThan(100);
    expect(await b.plants.delete('cache-1', 2n)).toBe(true);
    await waitFor('a to see b’s delete', async () => !(await names(a, 'cache-1')).includes('two'), { timeoutMs: 100 });
  });

  it('sees a token revoked through another instance within the bound', async () => {
    const { token, record } = await issueToken(b.tokens, { subject: 'revoked-elsewhere' });
    const other = await issueToken(b.tokens, { subject: 'revoked-behind-its-back' });
    // Cached: a revocation written behind a's back (no NOTIFY) is not seen.
    await waitFor('a cached token', async () => {
      await direct.query(`UPDATE ${schema}.tokens SET revoked_at = NULL WHERE id = $1`, [other.record.id]);
      await authenticateToken(a.tokens, other.token);
      await direct.query(`UPDATE ${schema}.tokens SET revoked_at = now() WHERE id = $1`, [other.record.id]);
      return (await authenticateToken(a.tokens, other.token)).ok;
    });
    expect((await authenticateToken(a.tokens, token)).ok).toBe(true);
    expect(await b.tokens.revoke(record.id, new Date())).toBe(true);
    const started = Date.now();
    await waitFor('a to see the revocation', async () => !(await authenticateToken(a.tokens, token)).ok, {
      timeoutMs: 1000,
    });
    expect(Date.now() - started).toBeLessThan(100);
  });

  it('does not answer from its cache while the feed is down, and starts afresh when it is back', async () => {
    expect(await a.plants.create('down-1', { id: 1n, name: 'before' })).toBe(true);
    await waitUntilCached('down-1');
    const stored = async () =>
      (await direct.query(`SELECT count(*)::int AS n FROM ${schema}.plants WHERE owner = 'down-1'`)).rows[0].n;
    proxy.blockListen(true);
    try {
      // However quickly the loss is noticed, from then on every read goes to the database.
      await waitFor('a to read through', async () => (await names(a, 'down-1')).length === (await stored()), {
        timeoutMs: 2000,
      });
      for (let i = 0; i < 5; i++) {
        await sneakIn('down-1', sneaked++, 'while down');
        expect(await names(a, 'down-1')).toHaveLength(await stored());
      }
    } finally {
      proxy.blockListen(false);
    }
    // Back: the caches restart empty (the notifications sent meanwhile are lost), so nothing stale comes back.
    await sneakIn('down-1', sneaked++, 'as it returns');
    expect(await names(a, 'down-1')).toHaveLength(await stored());
    await waitUntilCached('down-1');
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
