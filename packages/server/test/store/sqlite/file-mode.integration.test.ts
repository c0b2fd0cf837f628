// The SQLite database holds webhook signing secrets and token hashes: a new one is created readable by its owner alone
// (0600, its -wal and -shm too, in a folder created 0700), and opening an existing one that others can read warns.
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../../src/store/sqlite/sqlite-store.js';

const dir = mkdtempSync(join(tmpdir(), 'plant-store-mode-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const modeOf = (path: string) => statSync(path).mode & 0o777;

async function warningsWhile(work: () => Promise<void>): Promise<Error[]> {
  const seen: Error[] = [];
  const listener = (warning: Error) => seen.push(warning);
  process.on('warning', listener);
  try {
    await work();
    await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
  } finally {
    process.off('warning', listener);
  }
  return seen;
}

describe('the SQLite file mode', () => {
  it('creates the database 0600 (its -wal and -shm too) in a folder created 0700, without a warning', async () => {
    const folder = join(dir, 'data');
    const file = join(folder, 'plant-store.db');
    const warnings = await warningsWhile(async () => {
      const store = openSqliteStore(file);
      await store.migrate();
      await store.plants.create('alice', { id: 1n, name: 'Fern' });
      expect(modeOf(folder)).toBe(0o700);
      expect(modeOf(file)).toBe(0o600);
      expect(modeOf(`${file}-wal`)).toBe(0o600);
      expect(modeOf(`${file}-shm`)).toBe(0o600);
      await store.close();
    });
    expect(warnings.filter((w) => (w as { code?: string }).code === 'PLANT_STORE_SQLITE_PERMISSIONS')).toEqual([]);
  });

  it('warns at start when an existing database is readable by others, naming the file and the fix', async () => {
    const file = join(dir, 'shared.db');
    writeFileSync(file, '');
    chmodSync(file, 0o644);
    const warnings = await warningsWhile(async () => {
      const store = openSqliteStore(file);
      await store.close();
    });
    const ours = warnings.filter((w) => (w as { code?: string }).code === 'PLANT_STORE_SQLITE_PERMISSIONS');
    expect(ours).toHaveLength(1);
    expect(ours[0]!.message).toContain(file);
    expect(ours[0]!.message).toMatch(/readable by other users \(mode 0644\).*chmod 600/);
    expect(modeOf(file)).toBe(0o644); // left as it was: changing it is the operator's call
  });
});
