// The store contract, on the engine under test (SQLite by default; memory and PostgreSQL in the -memory and -postgres
// projects): ordering, paging, per-owner uniqueness and isolation, exact int64 ids, migrations and tokens.
import { INT64_MAX, INT64_MIN } from '@plant-store/contract';
import { TEST_DATABASE, useTestStore, waitFor } from '@plant-store/test-kit';
import { pageText, withText } from '@plant-store/test-kit/page-text';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.js';

const testStore = useTestStore();
let store: Store;

/** The page's plants, parsed from the JSON the store built. */
async function plantsOf(owner: string, options: { limit: number; after?: bigint }) {
  const page = await store.plants.list(owner, options);
  return { ...page, plants: JSON.parse(pageText(page)) as { name: string; tag?: string }[] };
}

beforeAll(() => {
  store = testStore.store;
});

describe(`${TEST_DATABASE} store`, () => {
  it('is the database this project runs against', () => {
    expect(store.kind).toBe(TEST_DATABASE);
  });

  it('creates once per owner and id', async () => {
    expect(await store.plants.create('s-a', { id: 1n, name: 'Fern', tag: 'green' })).toBe(true);
    expect(await store.plants.create('s-a', { id: 1n, name: 'Again' })).toBe(false);
    expect(await store.plants.create('s-b', { id: 1n, name: 'Other owner' })).toBe(true);
    expect((await plantsOf('s-a', { limit: 10 })).plants).toEqual([{ name: 'Fern', tag: 'green' }]);
    expect((await plantsOf('s-b', { limit: 10 })).plants).toEqual([{ name: 'Other owner' }]);
  });

  it('keeps int64 edge ids exact and in signed order', async () => {
    const ids = [INT64_MAX, INT64_MIN, 2n ** 53n + 1n, 2n ** 53n, -1n, 0n];
    for (const id of ids) expect(await store.plants.create('s-edges', { id, name: `n${id}` })).toBe(true);
    const sorted = [...ids].sort((a, b) => (a < b ? -1 : 1));
    const { plants, hasMore, lastId } = await plantsOf('s-edges', { limit: 100 });
    expect(hasMore).toBe(false);
    expect(lastId).toBe(INT64_MAX);
    expect(plants.map((plant) => plant.name)).toEqual(sorted.map((id) => `n${id}`));
    // Paging one by one crosses every edge exactly, including 2^53 and 2^53 + 1.
    const walked: bigint[] = [];
    let after: bigint | undefined;
    for (;;) {
      const page = await plantsOf('s-edges', after === undefined ? { limit: 1 } : { limit: 1, after });
      if (page.lastId === undefined) break;
      walked.push(page.lastId);
      after = page.lastId;
      if (!page.hasMore) break;
    }
    expect(walked).toEqual(sorted);
    expect(await store.plants.delete('s-edges', 2n ** 53n + 1n)).toBe(true);
    const names = (await plantsOf('s-edges', { limit: 100 })).plants.map((p) => p.name);
    expect(names).toContain(`n${2n ** 53n}`);
    expect(names).not.toContain(`n${2n ** 53n + 1n}`);
  });

  it('pages after a cursor with no gaps or duplicates', async () => {
    const ids = Array.from({ length: 57 }, (_, i) => BigInt(i * 3 - 40));
    for (const id of ids) await store.plants.create('s-pages', { id, name: `p${id}` });
    const seen: string[] = [];
    let after: bigint | undefined;
    for (;;) {
      const page = await plantsOf('s-pages', after === undefined ? { limit: 10 } : { limit: 10, after });
      seen.push(...page.plants.map((plant) => plant.name));
      if (!page.hasMore) break;
      after = page.lastId;
    }
    expect(seen).toEqual(ids.map((id) => `p${id}`));
  });

  it('answers an empty page for an owner with no plants', async () => {
    expect(withText(await store.plants.list('s-nobody', { limit: 5 }))).toEqual({
      json: '[]',
      lastId: undefined,
      hasMore: false,
      version: '0',
    });
  });

  it('gives each page bytes of its own, so a cached page keeps no more memory than the page cache counts', async () => {
    // A page's body that was a slice of a shared buffer (Buffer.from of a short string: a slice of Node's pool, 64 KB on
    // Node 24) would keep that whole buffer alive while cached: PostgreSQL's pages did, 81 MB of buffers under a 12 MB bound.
    for (const id of [1n, 2n, 3n]) await store.plants.create('s-own-bytes', { id, name: `p${id}` });
    for (const limit of [1, 2, 100]) {
      for (const _ of ['built', 'cached']) {
        const { body } = await store.plants.list('s-own-bytes', { limit });
        expect(body.buffer.byteLength).toBe(body.byteLength);
      }
    }
  });

  it('sees its own writes at once, even right after a read', async () => {
    expect((await plantsOf('s-fresh', { limit: 5 })).plants).toEqual([]);
    await store.plants.create('s-fresh', { id: 1n, name: 'new' });
    expect((await plantsOf('s-fresh', { limit: 5 })).plants).toEqual([{ name: 'new' }]);
    await store.plants.delete('s-fresh', 1n);
    expect((await plantsOf('s-fresh', { limit: 5 })).plants).toEqual([]);
  });

  it('deletes only the owner’s plant', async () => {
    await store.plants.create('s-del-a', { id: 9n, name: 'mine' });
    expect(await store.plants.delete('s-del-b', 9n)).toBe(false);
    expect(await store.plants.delete('s-del-a', 9n)).toBe(true);
    expect(await store.plants.delete('s-del-a', 9n)).toBe(false);
  });

  it('answers concurrent creates of one id with exactly one success', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => store.plants.create('s-race', { id: 7n, name: `r${i}` })),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('applies migrations once', async () => {
    expect(await store.migrate()).toEqual([]);
  });

  it('stores tokens by hash and revokes them', async () => {
    const hash = Buffer.alloc(32, 7);
    const createdAt = new Date('2026-01-01T00:00:00.000Z');
    await store.tokens.insert(
      { id: 'tok_test', subject: 'sub', scopes: ['read'], createdAt, expiresAt: null, revokedAt: null },
      hash,
    );
    const found = await store.tokens.findByHash(hash);
    expect(found).toMatchObject({ id: 'tok_test', subject: 'sub', scopes: ['read'], createdAt, revokedAt: null });
    expect(Buffer.compare(found!.secretHash, hash)).toBe(0);
    // The hash a token cache keeps is its own 32 bytes, no slice of a shared pool buffer (src/store/cache/own-bytes.ts).
    expect(found!.secretHash.buffer.byteLength).toBe(32);
    expect(await store.tokens.findByHash(Buffer.alloc(32, 8))).toBeUndefined();
    expect(await store.tokens.revoke('tok_test', new Date())).toBe(true);
    expect((await store.tokens.findByHash(hash))?.revokedAt).toBeInstanceOf(Date);
    expect(await store.tokens.revoke('tok_missing', new Date())).toBe(false);
    expect((await store.tokens.list()).map((token) => token.id)).toContain('tok_test');
  });

  // The memory engine keeps no page cache (its store has no cacheStats): there is no cached page to keep or drop.
  it.skipIf(TEST_DATABASE === 'memory')(
    'keeps a cached page through writes that cannot alter it, and drops it for those that can',
    async () => {
      const owner = 's-cached-pages';
      for (const id of [1n, 2n, 3n, 4n, 5n]) await store.plants.create(owner, { id, name: `p${id}` });
      const hits = () => store.cacheStats!().hits;
      // Cached once the store trusts its cache (PostgreSQL: once its change feed listens).
      await waitFor('the first page to be answered from the cache', async () => {
        const before = hits();
        await store.plants.list(owner, { limit: 2 });
        return hits() > before;
      });
      await plantsOf(owner, { limit: 10 });
      // Beyond the full first page, which already said more follow: still answered from the cache, unchanged.
      expect(await store.plants.create(owner, { id: 100n, name: 'p100' })).toBe(true);
      let before = hits();
      const first = await plantsOf(owner, { limit: 2 });
      expect(hits()).toBe(before + 1);
      expect(first.plants.map((plant) => plant.name)).toEqual(['p1', 'p2']);
      expect(first.hasMore).toBe(true);
      // The page that held every plant has one more now.
      expect((await plantsOf(owner, { limit: 10 })).plants.map((plant) => plant.name)).toEqual([
        'p1',
        'p2',
        'p3',
        'p4',
        'p5',
        'p100',
      ]);
      // Before the first page's range: it changes.
      expect(await store.plants.create(owner, { id: 0n, name: 'p0' })).toBe(true);
      expect((await plantsOf(owner, { limit: 2 })).plants.map((plant) => plant.name)).toEqual(['p0', 'p1']);
      // A delete beyond a page that said more follow may end that: the last page after 5 loses its only plant.
      await plantsOf(owner, { limit: 2, after: 5n });
      expect(await store.plants.delete(owner, 100n)).toBe(true);
      const tail = await plantsOf(owner, { limit: 2, after: 5n });
      expect(tail.plants).toEqual([]);
      expect(tail.hasMore).toBe(false);
      // A delete before a page's range leaves it cached.
      await plantsOf(owner, { limit: 2, after: 2n });
      expect(await store.plants.delete(owner, 0n)).toBe(true);
      before = hits();
      expect((await plantsOf(owner, { limit: 2, after: 2n })).plants.map((plant) => plant.name)).toEqual(['p3', 'p4']);
      expect(hits()).toBe(before + 1);
    },
  );

  it('answers ping', async () => {
    await expect(store.ping()).resolves.toBeUndefined();
  });
});
