// A write that finds SQLite's write lock held by another connection waits for it off the event loop: the process
// keeps serving (timers, reads) meanwhile, the write commits once the lock is free, and one held longer than the
// connection's busy_timeout is answered 503. SQLite's own busy handler would sleep in the calling thread instead.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { createGroupCommit } from '../../../src/store/sqlite/group-commit.js';
import { StoreUnavailableError } from '../../../src/store/store.js';

const dir = mkdtempSync(join(tmpdir(), 'plant-store-write-lock-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Resolves after `turns` timer callbacks have run: each proves the event loop turned while a write was waiting. */
const timerTurns = async (turns: number) => {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setTimeout(resolve, 1));
};

function openPair(name: string, busyTimeoutMs: number) {
  const file = join(dir, name);
  const writer = new Database(file);
  writer.pragma('journal_mode = WAL');
  writer.pragma(`busy_timeout = ${busyTimeoutMs}`);
  writer.exec('CREATE TABLE t (x INTEGER)');
  const holder = new Database(file);
  return { writer, holder };
}

describe('group commit while another connection holds the write lock', () => {
  it('keeps the event loop turning and commits once the lock is released', async () => {
    const { writer, holder } = openPair('released.db', 10_000);
    const write = createGroupCommit(writer);
    holder.prepare('BEGIN IMMEDIATE').run();
    let settled = false;
    const pending = write(() => writer.prepare('INSERT INTO t VALUES (1)').run().changes).finally(() => {
      settled = true;
    });
    await timerTurns(20);
    expect(settled).toBe(false);
    // The lock is still held, and the reader side of the same connection answers meanwhile.
    expect(writer.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 0 });
    holder.prepare('COMMIT').run();
    await expect(pending).resolves.toBe(1);
    expect(writer.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 1 });
    // The connection's own busy_timeout is what it was.
    expect(writer.pragma('busy_timeout', { simple: true })).toBe(10_000);
    holder.close();
    writer.close();
  });

  it('answers 503 once the lock has been held longer than busy_timeout, and writes again after', async () => {
    const { writer, holder } = openPair('held.db', 50);
    const write = createGroupCommit(writer);
    holder.prepare('BEGIN IMMEDIATE').run();
    let turns = 0;
    const ticking = setInterval(() => turns++, 1);
    await expect(write(() => writer.prepare('INSERT INTO t VALUES (1)').run())).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );
    clearInterval(ticking);
    // The wait was spent on the event loop's timers, not asleep inside SQLite.
    expect(turns).toBeGreaterThan(1);
    holder.prepare('ROLLBACK').run();
    await expect(write(() => writer.prepare('INSERT INTO t VALUES (2)').run().changes)).resolves.toBe(1);
    holder.close();
    writer.close();
  });
});
