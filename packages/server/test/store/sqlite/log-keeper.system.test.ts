// A sync left to finish in the background holds the process open until it is durable, and lets it exit afterwards:
// a command that writes and then ends must not exit before its write is on disk, nor hang after it. Run as a process
// of its own, on the built module, as the CLI runs.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'plant-store-log-keeper-process-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const built = new URL('../../../dist/store/sqlite/', import.meta.url).href;

/** Runs, in a process of its own, a log sync of a new database `file`, then `rest`; returns its output's lines. */
async function withLogSync(file: string, rest: string): Promise<string[]> {
  const script = `
    const { openSqliteDatabase } = await import('${built}sqlite-store.js');
    const { keepLogOf } = await import('${built}log-keeper.js');
    const db = openSqliteDatabase(${JSON.stringify(join(dir, file))});
    db.exec('CREATE TABLE t (x INTEGER)');
    const log = keepLogOf(${JSON.stringify(join(dir, file))});
    ${rest}
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
    timeout: 20_000,
  });
  return stdout.trim().split('\n');
}

it('keeps the process open for a background sync, and lets it end once synced, without a close', async () => {
  expect(await withLogSync('process.db', `log.sync().then(() => console.log('synced'));`)).toEqual(['synced']);
});

it('keeps the process open until a close with syncs pending has finished', async () => {
  const lines = await withLogSync(
    'closing.db',
    `log.sync().then(() => console.log('synced'));
    await log.close();
    console.log('closed');`,
  );
  expect(lines).toEqual(['synced', 'closed']);
});
