// A sync left to finish in the background holds the process open until it is durable (a pending Atomics.waitAsync
// does not), and lets it exit afterwards: a command that writes and then ends must not exit before its write is on
// disk, nor hang after it. Run as a process of its own, on the built module, as the CLI runs.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'plant-store-log-sync-process-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const built = new URL('../../../dist/store/sqlite/', import.meta.url).href;

it('keeps the process open for a background sync, and lets it end once synced, without a close', async () => {
  const script = `
    const { openSqliteDatabase } = await import('${built}sqlite-store.js');
    const { syncLogOf } = await import('${built}log-sync.js');
    const db = openSqliteDatabase(${JSON.stringify(join(dir, 'process.db'))});
    db.exec('CREATE TABLE t (x INTEGER)');
    const log = syncLogOf(${JSON.stringify(join(dir, 'process.db'))});
    log.sync().then(() => console.log('synced'));
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
    timeout: 20_000,
  });
  expect(stdout.trim()).toBe('synced');
});

it('keeps the process open until a close with syncs pending has finished', async () => {
  const script = `
    const { openSqliteDatabase } = await import('${built}sqlite-store.js');
    const { syncLogOf } = await import('${built}log-sync.js');
    const db = openSqliteDatabase(${JSON.stringify(join(dir, 'closing.db'))});
    db.exec('CREATE TABLE t (x INTEGER)');
    const log = syncLogOf(${JSON.stringify(join(dir, 'closing.db'))});
    log.sync().then(() => console.log('synced'));
    await log.close();
    console.log('closed');
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
    timeout: 20_000,
  });
  expect(stdout.trim().split('\n')).toEqual(['synced', 'closed']);
});
