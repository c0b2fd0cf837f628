// Caches across a failover that lost a write: two PostgreSQL servers play a primary and the standby that replaces it
// without its last write (as asynchronous replication can), and a write on the new primary brings the owner's version
// back to the number the old page carried. A page cached from the old server must not be answered once the store's
// connections reach the new one: the version alone cannot tell them apart.
import { pageText } from '@plant-store/test-kit/page-text';
import { startThrowawayPostgres, type ThrowawayPostgres } from '@plant-store/test-kit/throwaway-postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openStore } from '../../../src/store/open-store.js';
import { type Store, StoreUnavailableError } from '../../../src/store/store.js';

let primary: ThrowawayPostgres;
let standby: ThrowawayPostgres;
let store: Store;

beforeAll(async () => {
  [primary, standby] = await Promise.all([startThrowawayPostgres(), startThrowawayPostgres()]);
  const hosts = [primary, standby].map((server) => new URL(server.url).host).join(',');
  store = await openStore(`postgres://postgres@${hosts}/postgres`, { timeoutMs: 2_000 });
  await store.migrate();
}, 120_000);
afterAll(async () => {
  await store?.close();
  await Promise.all([primary?.stop(), standby?.stop()]);
});

it('forgets pages cached from the old server when its connections reach a new one', async () => {
  expect(await store.plants.create('owner', { id: 1n, name: 'on-the-old-primary' })).toBe(true);
  const cached = pageText(await store.plants.list('owner', { limit: 10 }));
  expect(cached).toContain('on-the-old-primary');
  expect(pageText(await store.plants.list('owner', { limit: 10 }))).toBe(cached);
  // The new primary never got that create; another write there moves the owner to the same version, 1.
  const other = await openStore(standby.url);
  try {
    await other.migrate();
    expect(await other.plants.create('owner', { id: 2n, name: 'on-the-new-primary' })).toBe(true);
  } finally {
    await other.close();
  }
  await primary.stop();
  let page: string | undefined;
  for (let attempt = 0; attempt < 20 && page === undefined; attempt++) {
    page = await store.plants.list('owner', { limit: 10 }).then(pageText, (error: unknown) => {
      if (!(error instanceof StoreUnavailableError)) throw error;
      return undefined;
    });
  }
  expect(page).toContain('on-the-new-primary');
  expect(page).not.toContain('on-the-old-primary');
});
