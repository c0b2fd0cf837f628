// The PostgreSQL change feed on the machine's PostgreSQL: a schema with capitals in its name works end to end and its
// instances see each other's writes (the channel is quoted when LISTENed, so it is not folded to lower case), and a
// feed whose notifications stop arriving while its connection stays healthy stops being trusted: it proves it is live
// by receiving its own heartbeat notification, not by answering SELECT 1.
import { randomBytes } from 'node:crypto';
import { createTestDatabase, waitFor } from '@plant-store/test-kit';
import { type ListenBlockingProxy, startListenBlockingProxy } from '@plant-store/test-kit/listen-blocking-proxy';
import { pageText } from '@plant-store/test-kit/page-text';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../../src/store/open-store.js';
import { type Change, ChangeFeed, channelFor } from '../../../src/store/postgres/change-feed.js';
import type { Store } from '../../../src/store/store.js';

// The kit quotes the schema's name when it drops it, so a name with capitals is dropped too.
const database = createTestDatabase('postgres', { schemaPrefix: 'CaseTest_' });
const schema = database.schema ?? '';
let proxy: ListenBlockingProxy;
/** `a` reaches PostgreSQL through the proxy (its notifications can be dropped); `b` is another instance. */
let a: Store;
let b: Store;

const names = async (store: Store, owner: string) =>
  (JSON.parse(pageText(await store.plants.list(owner, { limit: 100 }))) as { name: string }[]).map((p) => p.name);

beforeAll(async () => {
  proxy = await startListenBlockingProxy();
  // A short deadline for each database call, the feed's heartbeat included, keeps the test short.
  a = await openStore(proxy.url(schema), { timeoutMs: 1_000 });
  b = await openStore(database.url);
  await a.migrate();
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await proxy?.close();
  await database.drop();
});

describe('the PostgreSQL change feed', () => {
  it('works in a schema named with capitals, and its instances invalidate each other', async () => {
    const owner = `owner_${randomBytes(4).toString('hex')}`;
    await a.plants.create(owner, { id: 1n, name: 'Fern' });
    // Both cache the page once their feeds are live.
    await waitFor('both caches warm', async () => {
      for (const store of [a, b]) await store.plants.list(owner, { limit: 100 });
      return (a.cacheStats?.().hits ?? 0) > 0 && (b.cacheStats?.().hits ?? 0) > 0;
    });
    await b.plants.delete(owner, 1n);
    await b.plants.create(owner, { id: 2n, name: 'Ivy' });
    expect(await names(a, owner)).toEqual(['Ivy']);
    await a.plants.create(owner, { id: 3n, name: 'Moss' });
    expect(await names(b, owner)).toEqual(['Ivy', 'Moss']);
  });

  it('stops being live when its notifications stop arriving, though its connection answers, and recovers', async () => {
    const changes: (Change | undefined)[] = [];
    const connectionString = new URL(proxy.url(schema));
    connectionString.searchParams.delete('schema');
    const feed = new ChangeFeed({
      connectionString: connectionString.toString(),
      channel: channelFor(schema),
      origin: 'liveness',
      heartbeatMs: 50,
      timeoutMs: 500,
      onChange: (change) => changes.push(change),
    });
    try {
      await feed.start();
      expect(feed.live).toBe(true);
      proxy.dropNotifications(true);
      try {
        // The heartbeat it sent does not come back: it says "anything may have changed" and stops being live.
        await waitFor('the feed to stop being live', () => !feed.live);
        expect(changes.at(-1)).toBeUndefined();
      } finally {
        proxy.dropNotifications(false);
      }
      await waitFor('the feed to be live again', () => feed.live);
    } finally {
      await feed.close();
    }
  });
});
