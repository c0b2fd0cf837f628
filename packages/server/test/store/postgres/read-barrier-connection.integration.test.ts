// The read barrier's checks run on a connection of their own: a cached page is answered while every pooled connection
// is held by a write (here a create whose transaction waits for a row lock), instead of waiting behind it.
import { createTestDatabase, POSTGRES_URL, type TestDatabase, waitFor } from '@plant-store/test-kit';
import { pageText } from '@plant-store/test-kit/page-text';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../../src/store/open-store.js';
import type { Store } from '../../../src/store/store.js';

const database: TestDatabase = createTestDatabase('postgres');
const schema = database.schema ?? '';
let store: Store;
let direct: pg.Client;

beforeAll(async () => {
  store = await openStore(database.url, { poolSize: 1 });
  await store.migrate();
  direct = new pg.Client({ connectionString: POSTGRES_URL });
  await direct.connect();
});
afterAll(async () => {
  await direct.query('ROLLBACK').catch(() => {});
  await direct.end();
  await store.close();
  await database.drop();
});

describe('the read barrier', () => {
  it('answers a cached page while the pool’s only connection waits inside a create', async () => {
    expect(await store.plants.create('barrier-1', { id: 1n, name: 'one' })).toBe(true);
    const cached = pageText(await store.plants.list('barrier-1', { limit: 100 }));
    // The owner's version row locked behind the store's back: the next create's transaction waits for it.
    await direct.query('BEGIN');
    await direct.query(`SELECT 1 FROM ${schema}.owner_versions WHERE owner = $1 FOR UPDATE`, ['barrier-1']);
    let createSettled = false;
    const create = store.plants.create('barrier-1', { id: 2n, name: 'two' }).finally(() => {
      createSettled = true;
    });
    await waitFor('the create to wait for the lock on the pool’s connection', async () => {
      const waiting = await direct.query(
        `SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1`,
        [`%${schema}%`],
      );
      return waiting.rowCount === 1;
    });
    // The check reads owner_versions without a lock; the version stands, so the cached page is the answer.
    expect(pageText(await store.plants.list('barrier-1', { limit: 100 }))).toBe(cached);
    expect(createSettled).toBe(false);
    await direct.query('ROLLBACK');
    expect(await create).toBe(true);
    expect(pageText(await store.plants.list('barrier-1', { limit: 100 }))).toContain('two');
  });
});
