// A request checks the SQLite store's caches against the database once (the change feed, read as the request's first
// cached answer is given, when the wal-index header moved), not once per call: another connection's commit is seen by the next request, and by any
// call once the event loop has turned, while the calls of one request answer from one view. Another connection's
// commit costs the pages of the owners it did not touch nothing: they stay cached. The requests of one turn of the
// event loop share one look, in the turn's check phase.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pageText } from '@plant-store/test-kit/page-text';
import Database from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { openSqliteStore } from '../../../src/store/sqlite/sqlite-store.js';

const dir = mkdtempSync(join(tmpdir(), 'plant-store-freshness-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Store = ReturnType<typeof openSqliteStore>;

const names = async (store: Store, owner = 'owner') =>
  (JSON.parse(pageText(await store.plants.list(owner, { limit: 10 }))) as { name: string }[]).map((p) => p.name);

/**
 * Runs `test` with a migrated store on a new file and another process's connection to it (a raw one, whose writes
 * commit at once), and closes both however it ends.
 */
async function withOtherConnection(file: string, test: (store: Store, other: Database.Database) => Promise<void>) {
  const path = join(dir, file);
  const store = openSqliteStore(path);
  await store.migrate();
  const other = new Database(path);
  try {
    await test(store, other);
  } finally {
    other.close();
    await store.close();
  }
}

/**
 * Another worker's create through `other`, committed at once (a store's own create would wait for the event loop to
 * turn): the plant and the owner's version, moved in the same transaction as the store does.
 */
const otherCreate = (other: Database.Database) =>
  other.transaction((id: number, name: string) => {
    other.prepare("INSERT INTO plants (owner, id, name) VALUES ('owner', ?, ?)").run(id, name);
    other
      .prepare(
        `INSERT INTO owner_versions (owner, version) VALUES ('owner', 1)
         ON CONFLICT (owner) DO UPDATE SET version = version + 1`,
      )
      .run();
  });

it('sees another connection’s commit in the next request, and after the turn, but not within one request', () =>
  withOtherConnection('plants.db', async (store, other) => {
    await store.plants.create('owner', { id: 1n, name: 'one' });
    const insert = otherCreate(other);
    store.beginRequest!();
    expect(await names(store)).toEqual(['one']);
    insert(2, 'two');
    // The same request: its view is the one checked when it began reading.
    expect(await names(store)).toEqual(['one']);
    // The next request checks again.
    store.beginRequest!();
    expect(await names(store)).toEqual(['one', 'two']);

    insert(3, 'three');
    // Once the turn has ended, a call outside any request checks again too.
    await new Promise((resolve) => setImmediate(resolve));
    expect(await names(store)).toEqual(['one', 'two', 'three']);
    // Outside requests, every call checks.
    insert(4, 'four');
    expect(await names(store)).toEqual(['one', 'two', 'three', 'four']);
  }));

// The requests that begin in one turn of the event loop wait for one look at the wal-index header, taken in the
// turn's check phase: after the last of them began, so a commit made before any of them arrived is seen by all.
it('has the requests of one turn wait for one look, taken after the last of them began', () =>
  withOtherConnection('turn.db', async (store, other) => {
    await store.plants.create('owner', { id: 1n, name: 'one' });
    const insert = otherCreate(other);
    store.beginRequest!();
    expect(await names(store)).toEqual(['one']);
    await new Promise((resolve) => setImmediate(resolve));

    const first = store.beginRequest!();
    expect(first).toBeInstanceOf(Promise);
    // Committed after the first request began and before the second: both are answered with it.
    insert(2, 'two');
    const second = store.beginRequest!();
    expect(second).toBe(first);
    await first;
    expect(await names(store)).toEqual(['one', 'two']);
    // The look stands for the rest of the turn's requests: a commit after it is not read by them...
    insert(3, 'three');
    expect(await names(store)).toEqual(['one', 'two']);
    // ...and a request begun after it waits for a look of its own.
    const third = store.beginRequest!();
    expect(third).not.toBe(first);
    await third;
    expect(await names(store)).toEqual(['one', 'two', 'three']);
  }));

// A look that moved past the header and then could not read the feed (here its table renamed away; in life a busy or
// failing disk) must not count the header as seen: the next look reads the feed again and hears the commit.
it('hears a commit whose feed could not be read at the first look, at the next', () =>
  withOtherConnection('feed-failure.db', async (store, other) => {
    await store.plants.create('owner', { id: 1n, name: 'one' });
    await store.beginRequest!();
    expect(await names(store)).toEqual(['one']);
    otherCreate(other)(2, 'two');
    other.exec('ALTER TABLE change_feed RENAME TO change_feed_away');
    // The turn's look fails quietly; the request's own call looks again and meets the failure itself.
    await store.beginRequest!();
    await expect(names(store)).rejects.toThrow(/change_feed/);
    other.exec('ALTER TABLE change_feed_away RENAME TO change_feed');
    await new Promise((resolve) => setImmediate(resolve));
    await store.beginRequest!();
    expect(await names(store)).toEqual(['one', 'two']);
  }));

it('settles a look due after the store closed without reading, and fails no caller that did not wait for it', async () => {
  const store = openSqliteStore(join(dir, 'closed.db'));
  await store.migrate();
  const look = store.beginRequest!();
  await store.close();
  await expect(look).resolves.toBeUndefined();
});

it('has no look to wait for in a database no other connection can reach', async () => {
  const store = openSqliteStore(':memory:');
  await store.migrate();
  expect(store.beginRequest!()).toBeUndefined();
  await store.close();
});

it('keeps the pages of owners another connection did not write to, and checks the owner it wrote to', async () => {
  const path = join(dir, 'owners.db');
  const store = openSqliteStore(path);
  const other = openSqliteStore(path);
  await store.migrate();
  try {
    await store.plants.create('alice', { id: 1n, name: 'a1' });
    await store.plants.create('bob', { id: 1n, name: 'b1' });
    expect(await names(store, 'alice')).toEqual(['a1']);
    expect(await names(store, 'bob')).toEqual(['b1']);
    const hits = store.cacheStats!().hits;
    await other.plants.create('bob', { id: 2n, name: 'b2' });
    await other.plants.delete('bob', 1n);
    // Alice's page is answered from the cache; bob's is read again, with the other connection's writes.
    expect(await names(store, 'alice')).toEqual(['a1']);
    expect(store.cacheStats!().hits).toBe(hits + 1);
    expect(await names(store, 'bob')).toEqual(['b2']);
    expect(store.cacheStats!().hits).toBe(hits + 1);
  } finally {
    await other.close();
    await store.close();
  }
});

it('refuses a token revoked by another process from the next request on', () =>
  withOtherConnection('tokens.db', async (store, other) => {
    const { issueToken, authenticateToken } = await import('../../../src/auth/tokens.js');
    const { token, record } = await issueToken(store.tokens, { subject: 'alice' });
    store.beginRequest!();
    expect((await authenticateToken(store.tokens, token)).ok).toBe(true);
    other.prepare('UPDATE tokens SET revoked_at = ? WHERE id = ?').run(new Date().toISOString(), record.id);
    // The next request, waiting for its turn's look as app.ts has every request do.
    await store.beginRequest!();
    expect(await authenticateToken(store.tokens, token)).toEqual({ ok: false, reason: 'revoked' });
  }));

it("keeps token records cached across another process's plant writes, reading only the tokens' generation", () =>
  withOtherConnection('token-generation.db', async (store, other) => {
    const { issueToken, authenticateToken } = await import('../../../src/auth/tokens.js');
    const { token, record } = await issueToken(store.tokens, { subject: 'alice' });
    store.beginRequest!();
    expect((await authenticateToken(store.tokens, token)).ok).toBe(true);
    // Another process's create moves the wal-index header; a change to the token made without moving its generation
    // (the trigger dropped) shows whether the record was read again: it was not.
    other.exec('DROP TRIGGER tokens_updated');
    other.prepare('UPDATE tokens SET revoked_at = ? WHERE id = ?').run(new Date().toISOString(), record.id);
    other.prepare("INSERT INTO plants (owner, id, name) VALUES ('owner', 1, 'one')").run();
    store.beginRequest!();
    expect((await authenticateToken(store.tokens, token)).ok).toBe(true);
    // Once the generation moves, the record is read again.
    other.prepare('UPDATE token_generation SET generation = generation + 1').run();
    store.beginRequest!();
    expect(await authenticateToken(store.tokens, token)).toEqual({ ok: false, reason: 'revoked' });
  }));
