// Group-committed SQLite writes are answered only once their batch is durable: the store's connection commits with
// synchronous=NORMAL and a thread of its own fsyncs the write-ahead log, waited for briefly on the event loop.
import { mkdtempSync, readdirSync, readlinkSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { createGroupCommit } from '../../../src/store/sqlite/group-commit.js';
import { syncLogOf } from '../../../src/store/sqlite/log-sync.js';
import { openSqliteDatabase, openSqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import { StoreUnavailableError } from '../../../src/store/store.js';

const dir = mkdtempSync(join(tmpdir(), 'plant-store-log-sync-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The files this process holds open, by path. */
const openFiles = () =>
  readdirSync('/proc/self/fd').map((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      return '';
    }
  });

describe('group commit with a log sync', () => {
  it('answers a batch only once its sync has returned, and commits it before', async () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE t (x INTEGER)');
    let release!: () => void;
    const syncs: Promise<void>[] = [];
    const write = createGroupCommit(db, undefined, undefined, () => {
      const synced = new Promise<void>((resolve) => {
        release = resolve;
      });
      syncs.push(synced);
      return synced;
    });
    let answered = false;
    const pending = write(() => db.prepare('INSERT INTO t VALUES (1)').run().changes).then((changes) => {
      answered = true;
      return changes;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(syncs).toHaveLength(1);
    // Committed (readable) but not yet answered: the sync has not returned.
    expect(db.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 1 });
    expect(answered).toBe(false);
    release();
    await expect(pending).resolves.toBe(1);
    db.close();
  });

  it('answers 503 (StoreUnavailableError) when the sync fails', async () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE t (x INTEGER)');
    const write = createGroupCommit(db, undefined, undefined, () => Promise.reject(new Error('EIO')));
    await expect(write(() => db.prepare('INSERT INTO t VALUES (1)').run())).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );
    db.close();
  });
});

describe('syncLogOf', () => {
  it('fsyncs the database’s write-ahead log, and re-opens it should the path name another file', async () => {
    const path = join(dir, 'sync.db');
    const db = openSqliteDatabase(path);
    db.exec('CREATE TABLE t (x INTEGER)');
    const log = syncLogOf(path);
    await log.sync();
    expect(openFiles()).toContain(`${path}-wal`);
    renameSync(`${path}-wal`, `${path}-old-wal`);
    db.exec('INSERT INTO t VALUES (1)'); // SQLite writes to the log it has open, now at the old path
    db.close();
    new Database(path).close(); // a new, empty log at the path
    const fresh = new Database(path);
    fresh.pragma('journal_mode = WAL');
    fresh.exec('CREATE TABLE IF NOT EXISTS u (x INTEGER)');
    await log.sync();
    expect(openFiles()).toContain(`${path}-wal`);
    expect(openFiles()).not.toContain(`${path}-old-wal`);
    await log.close();
    fresh.close();
  });

  it('answers a sync the disk returns within the wait in the same turn, and a longer one later, both once synced', async () => {
    const path = join(dir, 'turn.db');
    const db = openSqliteDatabase(path);
    db.exec('CREATE TABLE t (x INTEGER)');
    const sameTurn = async (log: ReturnType<typeof syncLogOf>) =>
      Promise.race([
        log.sync().then(() => 'synced'),
        new Promise((resolve) => setImmediate(() => resolve('a later turn'))),
      ]);
    const patient = syncLogOf(path, { waitMs: 60_000 });
    expect(await sameTurn(patient)).toBe('synced');
    await patient.close();
    // Never waited for: the sync finishes on its thread and is answered from a later turn.
    const background = syncLogOf(path, { waitMs: 0 });
    const synced = background.sync();
    expect(await sameTurn(background)).toBe('a later turn');
    await expect(synced).resolves.toBeUndefined();
    await background.close();
    db.close();
  });

  it('rejects every sync, waited for or not, when the log cannot be synced, and settles pending syncs on close', async () => {
    const missing = join(dir, 'never-created.db');
    for (const waitMs of [60_000, 0]) {
      const log = syncLogOf(missing, { waitMs });
      await expect(log.sync()).rejects.toThrow(/fdatasync/);
      const pending = expect(log.sync()).rejects.toThrow(/fdatasync/);
      await log.close();
      await pending;
    }
    const path = join(dir, 'closing.db');
    const db = openSqliteDatabase(path);
    db.exec('CREATE TABLE t (x INTEGER)');
    const log = syncLogOf(path, { waitMs: 0 });
    const pending = [log.sync(), log.sync()];
    await log.close();
    await expect(Promise.all(pending)).resolves.toEqual([undefined, undefined]);
    db.close();
  });

  it('is what the store’s group commit runs: the store holds its log open for syncing until it closes', async () => {
    const grouped = openSqliteStore(join(dir, 'grouped.db'));
    await grouped.migrate();
    expect(await grouped.plants.create('owner', { id: 1n, name: 'kept' })).toBe(true);
    expect(openFiles()).toContain(join(dir, 'grouped.db-wal'));
    const probe = new Database(join(dir, 'grouped.db'), { readonly: true });
    expect(probe.prepare('SELECT name FROM plants').all()).toEqual([{ name: 'kept' }]);
    probe.close();
    await grouped.close();
    expect(openFiles()).not.toContain(join(dir, 'grouped.db-wal'));
  });
});
