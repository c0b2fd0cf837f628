// The SQLite store on real files, with group commit on and off: connection settings, schema and query plan,
// exact int64 ids, paging without gaps, owner isolation, migrations, tokens, and data surviving a reopen.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INT64_MAX, INT64_MIN } from '@plant-store/contract';
import { pageText, withText } from '@plant-store/test-kit/page-text';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { sqliteMigrations } from '../../../src/store/sqlite/migrations.js';
import { openSqliteDatabase, openSqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import type { Store, TokenRecord } from '../../../src/store/store.js';

const dir = mkdtempSync(join(tmpdir(), 'plant-store-sqlite-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ALL_VERSIONS = sqliteMigrations.map((migration) => migration.version);

let files = 0;
const freshPath = () => join(dir, `db-${++files}`, 'plant-store.db');

const open: Store[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((store) => store.close()));
});

async function migratedStore(path: string, groupCommit: boolean): Promise<Store> {
  const store = openSqliteStore(path, { groupCommit });
  open.push(store);
  await store.migrate();
  return store;
}

/** Every plant of `owner`, walked page by page, with the ids the pages ended on. */
async function walk(store: Store, owner: string, limit: number) {
  const names: string[] = [];
  const lastIds: bigint[] = [];
  let after: bigint | undefined;
  for (;;) {
    const page = await store.plants.list(owner, after === undefined ? { limit } : { limit, after });
    const plants = JSON.parse(pageText(page)) as { name: string }[];
    expect(plants.length).toBeLessThanOrEqual(limit);
    names.push(...plants.map((plant) => plant.name));
    if (page.lastId !== undefined) lastIds.push(page.lastId);
    if (!page.hasMore) return { names, lastIds };
    expect(plants).toHaveLength(limit);
    after = page.lastId;
  }
}

describe('SQLite connection', () => {
  it('runs every connection on WAL, synchronous=FULL, foreign keys and a busy timeout', () => {
    const path = freshPath();
    const db = openSqliteDatabase(path);
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('synchronous', { simple: true })).toBe(2); // 2 is FULL
      expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
      expect(db.pragma('busy_timeout', { simple: true })).toBeGreaterThan(0);
    } finally {
      db.close();
    }
  });

  it('keeps an in-memory database in memory, with the same durability settings', () => {
    const db = openSqliteDatabase(':memory:');
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('memory');
      expect(db.pragma('synchronous', { simple: true })).toBe(2);
    } finally {
      db.close();
    }
  });

  it('creates the database file and its missing parent directories in WAL mode', async () => {
    const path = join(dir, 'deep', 'er', 'plants.db');
    await migratedStore(path, true);
    const probe = new Database(path, { readonly: true, fileMustExist: true });
    try {
      expect(probe.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      probe.close();
    }
  });
});

describe('SQLite schema', () => {
  it('keys plants by (owner, id) without a rowid, so an owner’s page is one index range scan', async () => {
    const path = freshPath();
    await migratedStore(path, true);
    const db = new Database(path, { readonly: true });
    try {
      const table = db.prepare("SELECT sql FROM sqlite_schema WHERE name = 'plants'").pluck().get() as string;
      expect(table).toMatch(/PRIMARY KEY \(owner, id\)\s*\)\s*WITHOUT ROWID/);
      const plan = db
        .prepare('EXPLAIN QUERY PLAN SELECT id, name, tag FROM plants WHERE owner = ? AND id > ? ORDER BY id LIMIT ?')
        .all('owner', 0, 10) as { detail: string }[];
      const details = plan.map((step) => step.detail).join('\n');
      expect(details).toMatch(/SEARCH plants USING PRIMARY KEY \(owner=\? AND id>\?\)/);
      expect(details).not.toMatch(/TEMP B-TREE|SCAN/);
    } finally {
      db.close();
    }
  });

  it('lists its migrations in strictly increasing version order', () => {
    expect(ALL_VERSIONS.length).toBeGreaterThan(0);
    ALL_VERSIONS.forEach((version, index) => {
      if (index > 0) expect(version).toBeGreaterThan(ALL_VERSIONS[index - 1]!);
    });
  });
});

describe.each([true, false])('SQLite store (group commit %s)', (groupCommit) => {
  it('applies every migration once and records it, however often migrate runs', async () => {
    const path = freshPath();
    const store = openSqliteStore(path, { groupCommit });
    open.push(store);
    expect(await store.migrate()).toEqual(ALL_VERSIONS);
    expect(await store.migrate()).toEqual([]);
    const other = openSqliteStore(path, { groupCommit });
    open.push(other);
    expect(await other.migrate()).toEqual([]);
    const db = new Database(path, { readonly: true });
    try {
      const rows = db.prepare('SELECT version, applied_at FROM schema_migrations ORDER BY version').all() as {
        version: number;
        applied_at: string;
      }[];
      expect(rows.map((row) => row.version)).toEqual(ALL_VERSIONS);
      for (const row of rows) expect(new Date(row.applied_at).toISOString()).toBe(row.applied_at);
    } finally {
      db.close();
    }
  });

  it('creates once per owner and id, answering a duplicate with false and keeping the first', async () => {
    const store = await migratedStore(freshPath(), groupCommit);
    expect(await store.plants.create('ann', { id: 1n, name: 'Fern', tag: 'green' })).toBe(true);
    expect(await store.plants.create('ann', { id: 1n, name: 'Imposter', tag: 'red' })).toBe(false);
    expect(await store.plants.create('ann', { id: 1n, name: 'Fern', tag: 'green' })).toBe(false);
    expect(await store.plants.create('ben', { id: 1n, name: 'Other owner' })).toBe(true);
    expect(JSON.parse(pageText(await store.plants.list('ann', { limit: 10 })))).toEqual([
      { name: 'Fern', tag: 'green' },
    ]);
    expect(JSON.parse(pageText(await store.plants.list('ben', { limit: 10 })))).toEqual([{ name: 'Other owner' }]);
  });

  it('answers concurrent duplicates with exactly one true', async () => {
    const store = await migratedStore(freshPath(), groupCommit);
    const results = await Promise.all(
      Array.from({ length: 25 }, (_, i) => store.plants.create('racer', { id: 42n, name: `r${i}` })),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('lists in ascending signed order, negative ids first', async () => {
    const store = await migratedStore(freshPath(), groupCommit);
    const ids = [10n, -3n, 0n, 7n, -100n, 2n, -1n];
    for (const id of ids) await store.plants.create('sorter', { id, name: `n${id}` });
    const page = await store.plants.list('sorter', { limit: 100 });
    const sorted = [...ids].sort((a, b) => (a < b ? -1 : 1));
    expect(JSON.parse(pageText(page))).toEqual(sorted.map((id) => ({ name: `n${id}` })));
    expect(page).toMatchObject({ lastId: 10n, hasMore: false });
    expect(withText(await store.plants.list('nobody', { limit: 5 }))).toEqual({
      json: '[]',
      lastId: undefined,
      hasMore: false,
      version: '0',
    });
  });

  it('pages through many rows with no gaps or duplicates, whatever the page size', async () => {
    const store = await migratedStore(freshPath(), groupCommit);
    // Sparse, shuffled ids on both sides of zero; 360 rows so some page sizes divide the total exactly.
    const ids = Array.from({ length: 360 }, (_, i) => BigInt((i * 7919) % 360) * 13n - 2000n);
    await Promise.all(ids.map((id) => store.plants.create('pager', { id, name: `p${id}` })));
    const sorted = [...ids].sort((a, b) => (a < b ? -1 : 1));
    const expected = sorted.map((id) => `p${id}`);
    for (const limit of [1, 7, 36, 100, 359, 360, 361]) {
      const { names, lastIds } = await walk(store, 'pager', limit);
      expect(names).toEqual(expected);
      expect(lastIds.at(-1)).toBe(sorted.at(-1));
      expect(lastIds).toHaveLength(Math.ceil(360 / limit));
    }
    const lastTwo = await store.plants.list('pager', { limit: 5, after: sorted.at(-3)! });
    expect(lastTwo).toMatchObject({ lastId: sorted.at(-1), hasMore: false });
    expect(JSON.parse(pageText(lastTwo))).toHaveLength(2);
    expect(withText(await store.plants.list('pager', { limit: 5, after: sorted.at(-1)! }))).toMatchObject({
      json: '[]',
      hasMore: false,
    });
  });

  it('keeps owners apart for create, list and delete', async () => {
    const store = await migratedStore(freshPath(), groupCommit);
    for (const id of [1n, 2n, 3n]) await store.plants.create('amy', { id, name: `amy${id}` });
    await store.plants.create('bo', { id: 2n, name: 'bo2' });
    expect(await store.plants.delete('bo', 1n)).toBe(false);
    expect(await store.plants.delete('bo', 2n)).toBe(true);
    expect(await store.plants.delete('bo', 2n)).toBe(false);
    expect(JSON.parse(pageText(await store.plants.list('amy', { limit: 10 })))).toEqual([
      { name: 'amy1' },
      { name: 'amy2' },
      { name: 'amy3' },
    ]);
    expect(pageText(await store.plants.list('bo', { limit: 10 }))).toBe('[]');
    // Owner names are compared exactly: no case folding, no prefix matching.
    expect(pageText(await store.plants.list('AMY', { limit: 10 }))).toBe('[]');
    expect(pageText(await store.plants.list('am', { limit: 10 }))).toBe('[]');
  });

  it('keeps int64 edge ids exact as bigint and stores them as 64-bit integers', async () => {
    const path = freshPath();
    const store = await migratedStore(path, groupCommit);
    const edges = [2n ** 53n + 1n, 2n ** 53n, INT64_MAX, INT64_MAX - 1n, INT64_MIN, INT64_MIN + 1n];
    for (const id of edges) expect(await store.plants.create('edges', { id, name: `e${id}` })).toBe(true);
    const { lastIds } = await walk(store, 'edges', 1);
    expect(lastIds).toEqual([...edges].sort((a, b) => (a < b ? -1 : 1)));
    for (const id of lastIds) expect(typeof id).toBe('bigint');
    expect(pageText(await store.plants.list('edges', { limit: 1, after: 2n ** 53n }))).toBe(
      `[{"name":"e${2n ** 53n + 1n}"}]`,
    );
    expect(await store.plants.delete('edges', 2n ** 53n + 1n)).toBe(true);
    expect(await store.plants.delete('edges', 2n ** 53n + 1n)).toBe(false);
    const db = new Database(path, { readonly: true });
    try {
      const rows = db
        .prepare("SELECT id, typeof(id) AS type FROM plants WHERE owner = 'edges' ORDER BY id")
        .safeIntegers(true)
        .all() as { id: bigint; type: string }[];
      expect(rows.map((row) => row.id)).toEqual([INT64_MIN, INT64_MIN + 1n, 2n ** 53n, INT64_MAX - 1n, INT64_MAX]);
      for (const row of rows) expect(row.type).toBe('integer');
    } finally {
      db.close();
    }
  });

  it('keeps plants and tokens across close and reopen', async () => {
    const path = freshPath();
    const store = await migratedStore(path, groupCommit);
    await store.plants.create('keeper', { id: INT64_MAX, name: 'kept', tag: 'x' });
    await store.plants.create('keeper', { id: 5n, name: 'deleted' });
    await store.plants.delete('keeper', 5n);
    const hash = Buffer.alloc(32, 3);
    await store.tokens.insert(tokenRecord('tok_keep'), hash);
    await store.close();

    const reopened = openSqliteStore(path, { groupCommit });
    open.push(reopened);
    expect(await reopened.migrate()).toEqual([]);
    expect(withText(await reopened.plants.list('keeper', { limit: 10 }))).toEqual({
      json: '[{"name":"kept","tag":"x"}]',
      lastId: INT64_MAX,
      hasMore: false,
      // Two creates and a delete: the owner's version moved three times, and survives the reopen.
      version: '3',
    });
    expect((await reopened.tokens.findByHash(hash))?.id).toBe('tok_keep');
  });

  it('stores tokens by hash, finds, lists and revokes them', async () => {
    const store = await migratedStore(freshPath(), groupCommit);
    const first = tokenRecord('tok_first', { scopes: ['read'], expiresAt: new Date('2030-06-01T12:00:00.000Z') });
    const second = tokenRecord('tok_second', { createdAt: new Date('2026-01-02T00:00:00.000Z') });
    await store.tokens.insert(first, Buffer.alloc(32, 1));
    await store.tokens.insert(second, Buffer.alloc(32, 2));

    const found = await store.tokens.findByHash(Buffer.alloc(32, 1));
    expect(found).toMatchObject(first);
    expect(found?.secretHash.equals(Buffer.alloc(32, 1))).toBe(true);
    expect(await store.tokens.findByHash(Buffer.alloc(32, 9))).toBeUndefined();
    await expect(store.tokens.insert(tokenRecord('tok_clash'), Buffer.alloc(32, 1))).rejects.toThrow(/UNIQUE/);
    expect((await store.tokens.list()).map((token) => token.id)).toEqual(['tok_first', 'tok_second']);
    for (const token of await store.tokens.list()) expect(token).not.toHaveProperty('secretHash');

    const revokedAt = new Date('2026-03-01T00:00:00.000Z');
    expect(await store.tokens.revoke('tok_first', revokedAt)).toBe(true);
    expect((await store.tokens.findByHash(Buffer.alloc(32, 1)))?.revokedAt).toEqual(revokedAt);
    // A second revoke succeeds but keeps the first time.
    expect(await store.tokens.revoke('tok_first', new Date('2027-01-01T00:00:00.000Z'))).toBe(true);
    expect((await store.tokens.list()).find((token) => token.id === 'tok_first')?.revokedAt).toEqual(revokedAt);
    expect(await store.tokens.revoke('tok_missing', revokedAt)).toBe(false);
    expect((await store.tokens.findByHash(Buffer.alloc(32, 2)))?.revokedAt).toBeNull();
  });

  it('works in memory too', async () => {
    const store = openSqliteStore(':memory:', { groupCommit });
    open.push(store);
    expect(store.kind).toBe('sqlite');
    expect(await store.migrate()).toEqual(ALL_VERSIONS);
    expect(await store.plants.create('mem', { id: -1n, name: 'ephemeral' })).toBe(true);
    expect(withText(await store.plants.list('mem', { limit: 1 }))).toEqual({
      json: '[{"name":"ephemeral"}]',
      lastId: -1n,
      hasMore: false,
      version: '1',
    });
    await expect(store.ping()).resolves.toBeUndefined();
  });
});

function tokenRecord(id: string, overrides: Partial<TokenRecord> = {}): TokenRecord {
  return {
    id,
    subject: `subject of ${id}`,
    scopes: ['read', 'write'],
    createdAt: new Date('2026-01-01T00:00:00.000Z'),
    expiresAt: null,
    revokedAt: null,
    ...overrides,
  };
}
