// The SQLite change feed (migration 7): triggers write a row for every move of an owner's version and of the tokens'
// generation, whoever the writer, and trim the feed as it grows; a store reads it to hear of other processes' commits,
// and one that fell further behind than the feed keeps forgets what it cached.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pageText } from '@plant-store/test-kit/page-text';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../../src/store/sqlite/sqlite-store.js';

const dir = mkdtempSync(join(tmpdir(), 'plant-store-change-feed-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function migrated(name: string) {
  const path = join(dir, name);
  const store = openSqliteStore(path);
  await store.migrate();
  return { path, store };
}

/** Another writer's `times` moves of `owner`'s version, in one transaction (an owner row made first at version 0). */
const moveOwner = (db: Database.Database, owner: string, times: number) => {
  db.prepare('INSERT INTO owner_versions (owner, version) VALUES (?, 0)').run(owner);
  const move = db.prepare('UPDATE owner_versions SET version = version + 1 WHERE owner = ?');
  db.transaction(() => {
    for (let i = 0; i < times; i++) move.run(owner);
  })();
};

const feed = (db: Database.Database) =>
  db.prepare('SELECT seq, owner, version FROM change_feed ORDER BY seq').all() as {
    seq: number;
    owner: string | null;
    version: number;
  }[];

it('gets a row for each move of an owner version or the tokens generation, from any writer, and none for the rest', async () => {
  const { path, store } = await migrated('rows.db');
  const db = new Database(path);
  try {
    await store.plants.create('alice', { id: 1n, name: 'a1' });
    await store.plants.create('alice', { id: 2n, name: 'a2' });
    // A hand-made update, as a release without the feed would write it.
    db.exec("UPDATE owner_versions SET version = version + 1 WHERE owner = 'alice'");
    // An idempotency key counted moves no version: no row.
    db.exec("UPDATE owner_versions SET idempotency_keys = idempotency_keys + 1 WHERE owner = 'alice'");
    db.exec('UPDATE token_generation SET generation = generation + 1');
    expect(feed(db)).toEqual([
      { seq: 1, owner: 'alice', version: 1 },
      { seq: 2, owner: 'alice', version: 2 },
      { seq: 3, owner: 'alice', version: 3 },
      { seq: 4, owner: null, version: 1 },
    ]);
  } finally {
    db.close();
    await store.close();
  }
});

it('drops the rows more than 16384 behind at every 1024th', async () => {
  const { path, store } = await migrated('trim.db');
  const db = new Database(path);
  try {
    moveOwner(db, 'x', 20_000);
    const { first, last, rows } = db
      .prepare('SELECT min(seq) AS first, max(seq) AS last, count(*) AS rows FROM change_feed')
      .get() as { first: number; last: number; rows: number };
    expect(last).toBe(20_000);
    expect(first).toBe(19_456 - 16_384 + 1); // trimmed at 19456, the last multiple of 1024
    expect(rows).toBe(last - first + 1);
  } finally {
    db.close();
    await store.close();
  }
});

it('makes a store that fell further behind than the feed keeps forget its pages, and answer the write it missed', async () => {
  const { path, store } = await migrated('behind.db');
  const db = new Database(path);
  const names = async () => {
    store.beginRequest!();
    return (JSON.parse(pageText(await store.plants.list('alice', { limit: 10 }))) as { name: string }[]).map(
      (plant) => plant.name,
    );
  };
  try {
    await store.plants.create('alice', { id: 1n, name: 'a1' });
    expect(await names()).toEqual(['a1']);
    // Another writer adds a plant of alice's and moves her version; then 20000 moves of another owner push that row
    // out of the feed before this store reads it.
    db.exec("INSERT INTO plants (owner, id, name) VALUES ('alice', 2, 'a2')");
    db.exec("UPDATE owner_versions SET version = version + 1 WHERE owner = 'alice'");
    moveOwner(db, 'x', 20_000);
    const misses = store.cacheStats!().misses;
    expect(await names()).toEqual(['a1', 'a2']);
    expect(store.cacheStats!().misses).toBe(misses + 1);
  } finally {
    db.close();
    await store.close();
  }
});

// The feed's rows for this store's own writes are skipped while they are answered; a version an own write made and
// rolled back is not its own: another process that makes it is heard.
it("hears another process's write of a version this store's own write made and rolled back", async () => {
  const { path, store } = await migrated('rolled-back.db');
  const other = openSqliteStore(path);
  const db = new Database(path);
  const names = async (owner: string) => {
    store.beginRequest!();
    return (JSON.parse(pageText(await store.plants.list(owner, { limit: 10 }))) as { name: string }[]).map(
      (plant) => plant.name,
    );
  };
  try {
    await store.plants.create('alice', { id: 1n, name: 'a1' });
    expect(await names('alice')).toEqual(['a1']);
    // A keyed create whose key cannot be kept: its transaction, the move of alice's version to 2 included, rolls back.
    db.exec(
      "CREATE TRIGGER refuse BEFORE INSERT ON idempotency_keys WHEN NEW.key = 'refused' BEGIN SELECT RAISE(ABORT, 'refused'); END",
    );
    const claim = { key: 'refused', fingerprint: 'f', created: 'c', conflict: 'x', now: Date.now() };
    await expect(store.plants.createOnce('alice', { id: 2n, name: 'a2' }, claim)).rejects.toThrow();
    // A refused write may have committed (a failed log sync) or not: the owner's pages are read again.
    const misses = store.cacheStats!().misses;
    expect(await names('alice')).toEqual(['a1']);
    expect(store.cacheStats!().misses).toBe(misses + 1);
    // Another process makes alice's version 2; then a write of this store's own commits.
    await other.plants.create('alice', { id: 3n, name: 'a3' });
    await store.plants.create('bob', { id: 1n, name: 'b1' });
    expect(await names('alice')).toEqual(['a1', 'a3']);
  } finally {
    db.close();
    await other.close();
    await store.close();
  }
});

// The feed carries each change with its row (from the change log, in the same statement): an owner's next list
// replays what it heard from memory, and reads the log only for what it did not hear (its own writes, a change the
// log no longer held when the feed was read).
describe("another process's changes, as the feed carries them", () => {
  const setUp = async (name: string) => {
    const { path, store } = await migrated(name);
    const other = openSqliteStore(path);
    const db = new Database(path);
    const list = async (owner: string, limit: number) => {
      store.beginRequest!();
      return (JSON.parse(pageText(await store.plants.list(owner, { limit }))) as { name: string }[]).map(
        (plant) => plant.name,
      );
    };
    const close = async () => {
      db.close();
      await other.close();
      await store.close();
    };
    return { store, other, db, list, close };
  };

  it('keeps a page the changes heard cannot alter, with the change log emptied before the list', async () => {
    const { store, other, db, list, close } = await setUp('heard.db');
    try {
      await store.plants.create('alice', { id: 1n, name: 'a1' });
      await store.plants.create('alice', { id: 2n, name: 'a2' });
      expect(await list('alice', 1)).toEqual(['a1']);
      await other.plants.create('alice', { id: 3n, name: 'a3' });
      await other.plants.create('alice', { id: 4n, name: 'a4' });
      // Another owner's list reads the feed, alice's changes with it; then the log loses them.
      expect(await list('bob', 1)).toEqual([]);
      db.exec('DELETE FROM plant_changes');
      const hits = store.cacheStats!().hits;
      expect(await list('alice', 1)).toEqual(['a1']);
      expect(store.cacheStats!().hits).toBe(hits + 1);
      // The page the changes could alter was dropped and is read again.
      expect(await list('alice', 10)).toEqual(['a1', 'a2', 'a3', 'a4']);
    } finally {
      await close();
    }
  });

  it('reads the log for a change it did not hear: a page kept only while the log has it', async () => {
    const { store, other, db, list, close } = await setUp('not-heard.db');
    try {
      await store.plants.create('alice', { id: 1n, name: 'a1' });
      await store.plants.create('alice', { id: 2n, name: 'a2' });
      expect(await list('alice', 1)).toEqual(['a1']);
      // The feed row's change is gone from the log before this store reads the feed: it hears a version, no change.
      await other.plants.create('alice', { id: 3n, name: 'a3' });
      db.exec('DELETE FROM plant_changes');
      const misses = store.cacheStats!().misses;
      expect(await list('alice', 1)).toEqual(['a1']);
      expect(store.cacheStats!().misses).toBe(misses + 1);
    } finally {
      await close();
    }
  });

  it("brings pages up through another process's changes around its own write, in either order of hearing", async () => {
    const { store, other, list, close } = await setUp('interleaved.db');
    try {
      await store.plants.create('alice', { id: 1n, name: 'a1' });
      await store.plants.create('alice', { id: 5n, name: 'a5' });
      expect(await list('alice', 1)).toEqual(['a1']);
      expect(await list('alice', 10)).toEqual(['a1', 'a5']);
      await other.plants.create('alice', { id: 2n, name: 'a2' });
      expect(await list('bob', 1)).toEqual([]);
      await store.plants.create('alice', { id: 6n, name: 'a6' });
      await other.plants.create('alice', { id: 7n, name: 'a7' });
      await other.plants.delete('alice', 5n);
      expect(await list('alice', 10)).toEqual(['a1', 'a2', 'a6', 'a7']);
      expect(await list('alice', 1)).toEqual(['a1']);
      expect((await store.plants.list('alice', { limit: 1 })).version).toBe(
        (await other.plants.list('alice', { limit: 1 })).version,
      );
    } finally {
      await close();
    }
  });
});

// `serve --workers N`: another process may commit at any moment of a list. A page and whether more plants follow
// come from one snapshot, or a page shorter than its limit says more follow (and is cached so, for good).
it('reads a page and whether more plants follow in one snapshot, whatever another process commits meanwhile', async () => {
  const { path, store } = await migrated('one-snapshot.db');
  const db = new Database(path);
  await store.plants.create('alice', { id: 1n, name: 'a1' });
  await store.plants.create('alice', { id: 2n, name: 'a2' });
  // Another process's create of a higher id commits right after this store's first read of alice's plants.
  const foreignCreate = db.transaction(() => {
    db.exec("INSERT INTO plants (owner, id, name) VALUES ('alice', 3, 'a3')");
    db.exec("UPDATE owner_versions SET version = version + 1 WHERE owner = 'alice'");
  });
  const prototype = Object.getPrototypeOf(db.prepare('SELECT 1')) as { get: (...args: unknown[]) => unknown };
  const get = prototype.get;
  let armed = true;
  prototype.get = function (this: { source: string }, ...args: unknown[]) {
    const row = get.apply(this, args);
    if (armed && this.source.includes('FROM plants')) {
      armed = false;
      foreignCreate();
    }
    return row;
  };
  try {
    store.beginRequest!();
    const page = await store.plants.list('alice', { limit: 3 });
    expect(armed).toBe(false);
    expect(JSON.parse(pageText(page))).toEqual([{ name: 'a1' }, { name: 'a2' }]);
    expect(page.hasMore).toBe(false);
  } finally {
    prototype.get = get;
  }
  try {
    // The next list hears the commit and answers one full page.
    store.beginRequest!();
    const page = await store.plants.list('alice', { limit: 3 });
    expect(JSON.parse(pageText(page))).toEqual([{ name: 'a1' }, { name: 'a2' }, { name: 'a3' }]);
    expect(page.hasMore).toBe(false);
  } finally {
    db.close();
    await store.close();
  }
});
