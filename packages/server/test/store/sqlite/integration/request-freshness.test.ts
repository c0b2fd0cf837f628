// A request checks the SQLite store's caches against the database once (data_version, read as the request's first
// cached answer is given), not once per call: another connection's commit is seen by the next request, and by any
// call once the event loop has turned, while the calls of one request answer from one view.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { openSqliteStore } from '../../../../src/store/sqlite/sqlite-store.js';
import { pageText } from '../../../support/page-text.js';

const dir = mkdtempSync(join(tmpdir(), 'plant-store-freshness-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const names = async (store: ReturnType<typeof openSqliteStore>) =>
  (JSON.parse(pageText(await store.plants.list('owner', { limit: 10 }))) as { name: string }[]).map((p) => p.name);

it('sees another connection’s commit in the next request, and after the turn, but not within one request', async () => {
  const path = join(dir, 'plants.db');
  const store = openSqliteStore(path);
  await store.migrate();
  await store.plants.create('owner', { id: 1n, name: 'one' });
  const other = new Database(path);
  const insert = other.prepare("INSERT INTO plants (owner, id, name) VALUES ('owner', ?, ?)");
  try {
    store.beginRequest!();
    expect(await names(store)).toEqual(['one']);
    insert.run(2, 'two');
    // The same request: its view is the one checked when it began reading.
    expect(await names(store)).toEqual(['one']);
    // The next request checks again.
    store.beginRequest!();
    expect(await names(store)).toEqual(['one', 'two']);

    insert.run(3, 'three');
    // Once the turn has ended, a call outside any request checks again too.
    await new Promise((resolve) => setImmediate(resolve));
    expect(await names(store)).toEqual(['one', 'two', 'three']);
    // Outside requests, every call checks.
    insert.run(4, 'four');
    expect(await names(store)).toEqual(['one', 'two', 'three', 'four']);
  } finally {
    other.close();
    await store.close();
  }
});

it('refuses a token revoked by another process from the next request on', async () => {
  const path = join(dir, 'tokens.db');
  const store = openSqliteStore(path);
  await store.migrate();
  const { issueToken, authenticateToken } = await import('../../../../src/auth/tokens.js');
  const { token, record } = await issueToken(store.tokens, { subject: 'alice' });
  const other = new Database(path);
  try {
    store.beginRequest!();
    expect((await authenticateToken(store.tokens, token)).ok).toBe(true);
    other.prepare('UPDATE tokens SET revoked_at = ? WHERE id = ?').run(new Date().toISOString(), record.id);
    store.beginRequest!();
    expect(await authenticateToken(store.tokens, token)).toEqual({ ok: false, reason: 'revoked' });
  } finally {
    other.close();
    await store.close();
  }
});
