// Group-committed creates on PostgreSQL: a batch without an Idempotency-Key goes as a smaller statement than one with
// a key (outbox.ts). Both must do the same: plants, deliveries for every subscription the statement sees (one another
// instance added a moment ago included), the owners' versions and their NOTIFY, and the keys only where claimed.
import { createTestDatabase, POSTGRES_URL, type TestDatabase, waitFor } from '@plant-store/test-kit';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../../src/store/open-store.js';
import { channelFor } from '../../../src/store/postgres/change-feed.js';
import type { Store } from '../../../src/store/store.js';

const database: TestDatabase = createTestDatabase('postgres');
const schema = database.schema ?? '';
let store: Store;
let other: Store;
let direct: pg.Client;
const notified: string[] = [];

const claim = (key: string) => ({
  key,
  fingerprint: `fp-${key}`,
  created: `created-${key}`,
  conflict: `conflict-${key}`,
  now: Date.now(),
});

async function count(sql: string, values: unknown[] = []): Promise<number> {
  const result = await direct.query<{ n: string }>(sql.replaceAll('SCHEMA', schema), values);
  return Number(result.rows[0]?.n);
}
const deliveries = (subscription: string) =>
  count('SELECT count(*) AS n FROM SCHEMA.webhook_deliveries WHERE subscription_id = $1', [subscription]);
const version = (owner: string) => count('SELECT version AS n FROM SCHEMA.owner_versions WHERE owner = $1', [owner]);
const keys = (owner: string) =>
  count('SELECT coalesce(max(idempotency_keys), 0) AS n FROM SCHEMA.owner_versions WHERE owner = $1', [owner]);

beforeAll(async () => {
  store = await openStore(database.url);
  await store.migrate();
  // A second instance on the same database: its subscriptions are not known to `store` until a statement reads them.
  other = await openStore(database.url);
  direct = new pg.Client({ connectionString: POSTGRES_URL });
  await direct.connect();
  direct.on('notification', (message) => notified.push(message.payload ?? ''));
  await direct.query(`LISTEN ${channelFor(schema)}`);
});
afterAll(async () => {
  await direct.end();
  await other.close();
  await store.close();
  await database.drop();
});

describe('a batch of creates without an Idempotency-Key', () => {
  it('queues a delivery for a subscription another instance added just before, and moves versions and NOTIFYs', async () => {
    expect(await store.plants.create('batch-a', { id: 1n, name: 'existing' })).toBe(true);
    await other.webhooks.addSubscription({ id: 'sub-all', url: 'http://127.0.0.1:9/', subject: null, secret: 's' });
    await other.webhooks.addSubscription({ id: 'sub-b', url: 'http://127.0.0.1:9/', subject: 'batch-b', secret: 's' });
    notified.length = 0;
    // One turn of the event loop: one batch, with a duplicate of an existing id and one of an earlier row.
    const outcomes = await Promise.all([
      store.plants.create('batch-a', { id: 1n, name: 'duplicate of a row' }),
      store.plants.create('batch-a', { id: 2n, name: 'two', tag: 't' }),
      store.plants.create('batch-b', { id: 1n, name: 'one of b' }),
      store.plants.create('batch-b', { id: 1n, name: 'duplicate in the batch' }),
    ]);
    expect(outcomes).toEqual([false, true, true, false]);
    expect(await deliveries('sub-all')).toBe(2);
    expect(await deliveries('sub-b')).toBe(1);
    expect(await version('batch-a')).toBe(2);
    expect(await version('batch-b')).toBe(1);
    expect(await keys('batch-a')).toBe(0);
    await waitFor('a NOTIFY per owner with new plants', () => notified.length >= 2);
    expect(notified.map((payload) => payload.slice(payload.indexOf('|') + 1)).sort()).toEqual([
      'p:batch-a',
      'p:batch-b',
    ]);
  });
});

describe('a batch that mixes creates with and without an Idempotency-Key', () => {
  it('creates both, keeps the key, and queues their deliveries', async () => {
    const before = await deliveries('sub-all');
    const outcomes = await Promise.all([
      store.plants.create('batch-c', { id: 1n, name: 'plain' }),
      store.plants.createOnce('batch-c', { id: 2n, name: 'keyed' }, claim('k1')),
    ]);
    expect(outcomes).toEqual([true, true]);
    expect(await deliveries('sub-all')).toBe(before + 2);
    expect(await version('batch-c')).toBe(2);
    expect(await keys('batch-c')).toBe(1);
    const kept = await direct.query(`SELECT status, body FROM ${schema}.idempotency_keys WHERE owner = $1`, [
      'batch-c',
    ]);
    expect(kept.rows).toEqual([{ status: 200, body: 'created-k1' }]);
  });
});
