// The SQLite write-ahead log shrinks again after a reader pinned it: while an old snapshot is held, checkpoints cannot
// restart the log and it grows with every write; once the reader is gone and the writer idle, it is emptied.
import { closeSync, mkdtempSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@plant-store/test-kit';
import { pageText } from '@plant-store/test-kit/page-text';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../../src/store/sqlite/sqlite-store.js';

const dir = mkdtempSync(join(tmpdir(), 'plant-store-wal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the SQLite write-ahead log', () => {
  it('grows while a reader pins an old snapshot, and is emptied once the writer is idle', async () => {
    const file = join(dir, 'wal.db');
    const store = openSqliteStore(file);
    await store.migrate();
    const walSize = () => statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0;
    const reader = new Database(file, { readonly: true });
    try {
      reader.prepare('BEGIN').run();
      reader.prepare('SELECT count(*) FROM plants').get(); // the snapshot is taken here and held
      const name = 'x'.repeat(200);
      for (let batch = 0; batch < 50; batch++) {
        await Promise.all(
          Array.from({ length: 20 }, (_, i) => store.plants.create('alice', { id: BigInt(batch * 20 + i), name })),
        );
      }
      expect(walSize()).toBeGreaterThan(100_000);
      reader.prepare('COMMIT').run();
    } finally {
      reader.close();
    }
    // No write since: nothing else would ever checkpoint it.
    await waitFor('the log emptied', () => walSize() === 0, { timeoutMs: 8_000 });
    expect(JSON.parse(pageText(await store.plants.list('alice', { limit: 1000 })))).toHaveLength(1_000);
    await store.close();
  });
});

describe('restarting the log', () => {
  // The WAL file's header counts restarts: its checkpoint sequence number (https://sqlite.org/fileformat.html#walformat).
  const restarts = (file: string) => {
    const fd = openSync(`${file}-wal`, 'r');
    try {
      const header = Buffer.alloc(16);
      readSync(fd, header, 0, 16, 0);
      return header.readUInt32BE(12);
    } finally {
      closeSync(fd);
    }
  };

  it('leaves a log of 5 MB (under the 64 MiB limit) as large as it grew: the serving connection does not truncate it', async () => {
    // Cutting the file back when a write restarts it frees its blocks inside that write, on the event loop: 5-19 ms
    // of ftruncate on this machine's ext4 with each restart of a 30-40 MB log under the bench's mixed workload.
    const file = join(dir, 'restart.db');
    const store = openSqliteStore(file);
    await store.migrate();
    const walSize = () => statSync(`${file}-wal`).size;
    const reader = new Database(file, { readonly: true });
    const name = 'z'.repeat(200);
    let id = 0;
    try {
      reader.prepare('BEGIN').run();
      reader.prepare('SELECT count(*) FROM plants').get();
      while (walSize() < 5 * 1024 * 1024) {
        await Promise.all(Array.from({ length: 20 }, () => store.plants.create('carol', { id: BigInt(id++), name })));
      }
      reader.prepare('COMMIT').run();
    } finally {
      reader.close();
    }
    const grown = walSize();
    const before = restarts(file);
    // Writes 20 ms apart: never idle long enough for the emptying; the checkpointer copies the log within a second
    // and a later write restarts it.
    await waitFor(
      'a write restarted the log',
      async () => {
        await store.plants.create('carol', { id: BigInt(id++), name });
        await new Promise((resolve) => setTimeout(resolve, 20));
        return restarts(file) > before;
      },
      { timeoutMs: 8_000 },
    );
    expect(walSize()).toBeGreaterThanOrEqual(grown);
    await store.close();
  });
});

describe('checkpoints', () => {
  it('never run on the serving connection: a worker thread copies the log into the database file as writes go on', async () => {
    const file = join(dir, 'checkpoints.db');
    const migrated = openSqliteStore(file);
    await migrated.migrate();
    await migrated.close(); // the last connection to close checkpoints the migrations: the log starts empty
    const store = openSqliteStore(file);
    const before = statSync(file).size;
    const name = 'y'.repeat(200);
    // Writes never pause long enough for the idle emptying (1 s), and 60 single creates fill far fewer than the
    // 1,000 pages of SQLite's automatic checkpoint: the file grows only because the checkpointer thread copies the log
    // into it while the writes go on (within a second of the first).
    let batch = 0;
    for (; batch < 60 && statSync(file).size === before; batch++) {
      await store.plants.create('bob', { id: BigInt(batch), name });
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(statSync(file).size).toBeGreaterThan(before);
    expect(batch).toBeLessThan(60);
    await store.close();
  });
});
