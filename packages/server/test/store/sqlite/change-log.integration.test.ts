// Two SQLite stores on one file, as two workers of `serve --workers 2`: a write by one is replayed over the other's
// cached pages from the change log, so the pages it cannot have altered stay cached (a cache hit) and those it alters
// answer the write at once; a process further behind on an owner than the log keeps forgets that owner's pages.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pageText } from '@plant-store/test-kit/page-text';
import { afterAll, expect, it } from 'vitest';
import { CHANGES_KEPT } from '../../../src/store/sqlite/change-log.js';
import { openSqliteStore } from '../../../src/store/sqlite/sqlite-store.js';

const dir = mkdtempSync(join(tmpdir(), 'plant-store-change-log-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type SqliteStore = ReturnType<typeof openSqliteStore>;
const ids = async (store: SqliteStore, limit: number) => {
  store.beginRequest!();
  return (JSON.parse(pageText(await store.plants.list('owner', { limit }))) as { name: string }[]).map((p) => p.name);
};
const hits = (store: SqliteStore) => store.cacheStats!().hits;

async function twoWorkers(name: string): Promise<[SqliteStore, SqliteStore]> {
  const path = join(dir, name);
  const first = openSqliteStore(path);
  await first.migrate();
  const second = openSqliteStore(path);
  await second.migrate();
  for (let id = 1n; id <= 3n; id++) await first.plants.create('owner', { id, name: `p${id}` });
  return [first, second];
}

it("keeps the pages another process's create and delete cannot alter, and answers the ones they do", async () => {
  const [first, second] = await twoWorkers('replay.db');
  try {
    expect(await ids(second, 2)).toEqual(['p1', 'p2']);
    expect(await ids(second, 10)).toEqual(['p1', 'p2', 'p3']);
    // Beyond the full page of 2: that page is kept; the page of 10 is not full, so it shows the new plant.
    await first.plants.create('owner', { id: 9n, name: 'p9' });
    let before = hits(second);
    expect(await ids(second, 2)).toEqual(['p1', 'p2']);
    expect(hits(second)).toBe(before + 1);
    expect(await ids(second, 10)).toEqual(['p1', 'p2', 'p3', 'p9']);
    // A delete inside both pages answers at once in both.
    await first.plants.delete('owner', 2n);
    before = hits(second);
    expect(await ids(second, 2)).toEqual(['p1', 'p3']);
    expect(await ids(second, 10)).toEqual(['p1', 'p3', 'p9']);
    expect(hits(second)).toBe(before);
    // The other process's own write after one of the first's: its pages are brought up to date before its write.
    await first.plants.create('owner', { id: 10n, name: 'p10' });
    await second.plants.create('owner', { id: 11n, name: 'p11' });
    before = hits(second);
    expect(await ids(second, 2)).toEqual(['p1', 'p3']);
    expect(hits(second)).toBe(before + 1);
    expect(await ids(second, 10)).toEqual(['p1', 'p3', 'p9', 'p10', 'p11']);
  } finally {
    await first.close();
    await second.close();
  }
});

it('forgets the pages of an owner that moved further than the log keeps', async () => {
  const [first, second] = await twoWorkers('behind.db');
  try {
    expect(await ids(second, 2)).toEqual(['p1', 'p2']);
    for (let id = 100n; id <= 100n + CHANGES_KEPT; id++) await first.plants.create('owner', { id, name: `p${id}` });
    // Every one of those creates is beyond the page, but the first is gone from the log: the page is built again.
    const before = hits(second);
    expect(await ids(second, 2)).toEqual(['p1', 'p2']);
    expect(hits(second)).toBe(before);
  } finally {
    await first.close();
    await second.close();
  }
});
