// Group-committed SQLite writes are answered only once their batch is durable: the store's connection commits with
// synchronous=NORMAL and a thread of its own fsyncs the write-ahead log; the event loop never waits for it: the next
// request to begin (poll) answers a finished sync, else the thread's message after it does. The same thread checkpoints.
import { mkdtempSync, readdirSync, readlinkSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { createGroupCommit } from '../../../src/store/sqlite/group-commit.js';
import { type Checkpointed, keepLogOf, type LogKeeper } from '../../../src/store/sqlite/log-keeper.js';
import { openSqliteDatabase, openSqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import { StoreUnavailableError } from '../../../src/store/store.js';

const dir = mkdtempSync(join(tmpdir(), 'plant-store-log-keeper-'));
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

  it('runs one sync at a time: the writes that arrive while it runs are one batch, committed as it returns', async () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE t (x INTEGER)');
    const releases: (() => void)[] = [];
    const batches: number[] = [];
    const write = createGroupCommit(
      db,
      undefined,
      (size) => batches.push(size),
      () => new Promise<void>((resolve) => releases.push(resolve)),
    );
    const insert = (x: number) => write(() => db.prepare('INSERT INTO t VALUES (?)').run(x).changes);
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    const first = insert(1);
    await turn();
    expect(batches).toEqual([1]);
    // Two more writes, each in a turn of its own, while the first batch's sync runs: neither is committed yet.
    const second = insert(2);
    await turn();
    const third = insert(3);
    await turn();
    expect(batches).toEqual([1]);
    expect(db.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 1 });
    releases[0]!();
    await expect(first).resolves.toBe(1);
    await turn();
    expect(batches).toEqual([1, 2]);
    expect(releases).toHaveLength(2);
    releases[1]!();
    await expect(Promise.all([second, third])).resolves.toEqual([1, 1]);
    db.close();
  });

  it('answers a batch that changed no row without a sync, and syncs one whose rows a trigger alone changed', async () => {
    const db = new Database(':memory:');
    db.exec(`CREATE TABLE t (x INTEGER);
      CREATE TABLE seen (x INTEGER);
      CREATE TABLE ask (x INTEGER);
      CREATE TRIGGER asked AFTER UPDATE ON ask BEGIN INSERT INTO seen VALUES (NEW.x); END;
      INSERT INTO ask VALUES (0)`);
    let syncs = 0;
    const write = createGroupCommit(db, undefined, undefined, async () => {
      syncs++;
    });
    await expect(write(() => db.prepare('DELETE FROM t WHERE x = 1').run().changes)).resolves.toBe(0);
    await expect(write(() => db.prepare('UPDATE t SET x = 2 WHERE x = 1').run().changes)).resolves.toBe(0);
    expect(syncs).toBe(0);
    await expect(write(() => db.prepare('INSERT INTO t VALUES (1)').run().changes)).resolves.toBe(1);
    expect(syncs).toBe(1);
    await write(() => db.prepare('UPDATE ask SET x = 1').run());
    expect(syncs).toBe(2);
    // A write that failed changed nothing, and one beside it in the batch that changed a row is synced.
    const [failed, kept] = await Promise.allSettled([
      write(() => db.prepare('INSERT INTO missing VALUES (1)').run()),
      write(() => db.prepare('DELETE FROM t').run().changes),
    ]);
    expect(failed.status).toBe('rejected');
    expect(kept).toEqual({ status: 'fulfilled', value: 1 });
    expect(syncs).toBe(3);
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

describe('keepLogOf', () => {
  it('fsyncs the database’s write-ahead log, and re-opens it should the path name another file', async () => {
    const path = join(dir, 'sync.db');
    const db = openSqliteDatabase(path);
    db.exec('CREATE TABLE t (x INTEGER)');
    const log = keepLogOf(path);
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

  it('answers a finished sync at the next poll, with no turn of the event loop between, and with no poll later', async () => {
    const path = join(dir, 'turn.db');
    const db = openSqliteDatabase(path);
    db.exec('CREATE TABLE t (x INTEGER)');
    const log = keepLogOf(path);
    /** Runs microtasks only (no turn of the event loop, so no message can answer) for up to `ms`, or until done. */
    const withinTurn = async (done: () => boolean, poll: boolean, ms: number) => {
      const until = performance.now() + ms;
      while (!done() && performance.now() < until) {
        if (poll) log.poll();
        await null;
      }
      return done();
    };
    let answered = false;
    void log.sync().then(() => (answered = true));
    // Without a poll nothing answers it within the turn (its thread syncs in well under 200 ms here); a poll does.
    expect(await withinTurn(() => answered, false, 200)).toBe(false);
    expect(await withinTurn(() => answered, true, 5000)).toBe(true);
    // With no poll at all, the thread's message answers it in a later turn.
    await expect(log.sync()).resolves.toBeUndefined();
    await log.close();
    db.close();
  });

  it('rejects every sync when the log cannot be synced, and settles pending syncs on close', async () => {
    const missing = join(dir, 'never-created.db');
    const log = keepLogOf(missing);
    await expect(log.sync()).rejects.toThrow(/fdatasync/);
    const pending = expect(log.sync()).rejects.toThrow(/fdatasync/);
    await log.close();
    await pending;
    const path = join(dir, 'closing.db');
    const db = openSqliteDatabase(path);
    db.exec('CREATE TABLE t (x INTEGER)');
    const closing = keepLogOf(path);
    const both = [closing.sync(), closing.sync()];
    await closing.close();
    await expect(Promise.all(both)).resolves.toEqual([undefined, undefined]);
    db.close();
  });

  it('is polled by the store as each request begins: a synced create is answered with no turn of the event loop between', async () => {
    const store = openSqliteStore(join(dir, 'polled.db'));
    await store.migrate();
    let created = false;
    const pending = store.plants.create('owner', { id: 1n, name: 'polled' }).then(() => (created = true));
    await new Promise((resolve) => setImmediate(resolve)); // the batch commits in this turn's check phase
    const until = performance.now() + 5000;
    while (!created && performance.now() < until) {
      store.beginRequest!();
      await null;
    }
    expect(created).toBe(true);
    await pending;
    await store.close();
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

  /** The next checkpoint result `log` reports, after asking for each of `modes` in one turn. */
  const checkpointed = (log: LogKeeper, ...modes: ('PASSIVE' | 'TRUNCATE')[]) =>
    new Promise<Checkpointed>((resolve) => {
      log.onCheckpointed(resolve);
      for (const mode of modes) log.checkpoint(mode);
    });

  it('checkpoints on the syncing thread, answering each with its result, and syncs asked meanwhile are answered', async () => {
    const path = join(dir, 'checkpoint.db');
    const db = openSqliteDatabase(path);
    db.pragma('wal_autocheckpoint = 0');
    db.exec('CREATE TABLE t (x INTEGER)');
    for (let i = 0; i < 50; i++) db.prepare('INSERT INTO t VALUES (?)').run(i);
    const log = keepLogOf(path);
    const passive = checkpointed(log, 'PASSIVE');
    await log.sync();
    expect(await passive).toMatchObject({ mode: 'PASSIVE', busy: false });
    expect(statSync(`${path}-wal`).size).toBeGreaterThan(0);
    const truncate = checkpointed(log, 'TRUNCATE');
    const synced = log.sync();
    expect(await truncate).toEqual({ mode: 'TRUNCATE', busy: false, log: 0 });
    await synced;
    expect(statSync(`${path}-wal`).size).toBe(0);
    // A checkpoint while the serving connection holds the write lock is refused at once (busy), never waited for.
    db.prepare('BEGIN IMMEDIATE').run();
    db.prepare('INSERT INTO t VALUES (0)').run();
    expect(await checkpointed(log, 'TRUNCATE')).toMatchObject({ mode: 'TRUNCATE', busy: true });
    db.prepare('COMMIT').run();
    db.close();
    // Its connection to the database is closed with the thread.
    expect(openFiles()).toContain(path);
    await log.close();
    expect(openFiles()).not.toContain(path);
  });

  it('reports a checkpoint it cannot open the database for as failed, and goes on syncing', async () => {
    const path = join(dir, 'gone.db');
    writeFileSync(`${path}-wal`, ''); // a log to sync, and no database
    const log = keepLogOf(path);
    expect(await checkpointed(log, 'PASSIVE')).toEqual({ mode: 'PASSIVE', failed: true });
    await expect(log.sync()).resolves.toBeUndefined();
    await log.close();
  });
});
