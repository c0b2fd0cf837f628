// The wal-index header look that spares a request its data_version read: it must report every commit by another
// connection (else a cached answer would miss it) and report nothing when nothing committed (else it spares nothing).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { watchWalHeader } from '../../../src/store/sqlite/wal-header.js';

const dir = mkdtempSync(join(tmpdir(), 'plant-store-wal-header-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('reports each commit by another connection, a checkpoint’s restart included, and stays unchanged without one', () => {
  const path = join(dir, 'plants.db');
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE t (x INTEGER)');
  const other = new Database(path);
  const header = watchWalHeader(path);
  try {
    expect(header.unchanged()).toBe(false); // the first look knows nothing yet
    expect(header.unchanged()).toBe(true);
    expect(header.unchanged()).toBe(true);
    for (let i = 0; i < 3; i++) {
      other.prepare('INSERT INTO t VALUES (?)').run(i);
      expect(header.unchanged()).toBe(false);
      expect(header.unchanged()).toBe(true);
    }
    // A checkpoint that empties the log, then a commit that starts it again from its first frame.
    other.pragma('wal_checkpoint(TRUNCATE)');
    header.unchanged();
    other.prepare('INSERT INTO t VALUES (?)').run(9);
    expect(header.unchanged()).toBe(false);
    expect(header.unchanged()).toBe(true);
    // A caller that could not act on what it saw has the next look report a change again.
    header.forget();
    expect(header.unchanged()).toBe(false);
    expect(header.unchanged()).toBe(true);
  } finally {
    header.close();
    other.close();
    db.close();
  }
});

it('reports a change whenever the header cannot be read, so the caller reads data_version', () => {
  const header = watchWalHeader(join(dir, 'missing.db'));
  expect(header.unchanged()).toBe(false);
  expect(header.unchanged()).toBe(false);
  header.close();
});
