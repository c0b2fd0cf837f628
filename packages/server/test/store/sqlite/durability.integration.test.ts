// SQLite's durability settings are really in force on the connection, and data survives closing and reopening.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INT64_MAX } from '@plant-store/contract';
import { pageText, withText } from '@plant-store/test-kit/page-text';
import Database from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { openSqliteStore } from '../../../src/store/sqlite/sqlite-store.js';

const dir = mkdtempSync(join(tmpdir(), 'plant-store-sqlite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('runs in WAL mode, sees other connections’ commits, and keeps rows across reopen', async () => {
  const path = join(dir, 'nested', 'plants.db');
  const store = openSqliteStore(path);
  await store.migrate();
  await store.plants.create('owner', { id: INT64_MAX, name: 'kept' });
  const probe = new Database(path, { readonly: true });
  expect(probe.pragma('journal_mode', { simple: true })).toBe('wal');
  probe.close();
  // A second connection's commit (as another worker process makes it: the plant and the owner's version, in one
  // transaction) is seen at once despite the page cache.
  await store.plants.list('owner', { limit: 5 });
  const other = new Database(path);
  other.exec(`BEGIN;
    INSERT INTO plants (owner, id, name) VALUES ('owner', 5, 'from elsewhere');
    UPDATE owner_versions SET version = version + 1 WHERE owner = 'owner';
    COMMIT;`);
  other.close();
  expect(JSON.parse(pageText(await store.plants.list('owner', { limit: 5 })))).toEqual([
    { name: 'from elsewhere' },
    { name: 'kept' },
  ]);
  await store.plants.delete('owner', 5n);
  await store.close();

  const reopened = openSqliteStore(path);
  expect(await reopened.migrate()).toEqual([]);
  const page = await reopened.plants.list('owner', { limit: 5 });
  // One create and one delete through the store, and the other connection's create, moved the owner's version 3 times.
  expect(withText(page)).toEqual({ json: '[{"name":"kept"}]', lastId: INT64_MAX, hasMore: false, version: '3' });
  await reopened.close();
});
