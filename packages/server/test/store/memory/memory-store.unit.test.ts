// The memory engine (DATABASE_URL=memory:): the whole Store interface without a database. The app on it, through
// inject, is in memory-app.integration.test.ts.

import { pageText, withText } from '@plant-store/test-kit/page-text';
import { describe, expect, it } from 'vitest';
import { issueToken } from '../../../src/auth/tokens.js';
import { loadConfig } from '../../../src/config.js';
import { engineOf, openStore } from '../../../src/store/open-store.js';

describe('the memory engine', () => {
  it('is named by DATABASE_URL=memory: and accepted by the configuration', async () => {
    expect(engineOf('memory:')).toBe('memory');
    expect(loadConfig({ DATABASE_URL: 'memory:' }).databaseUrl).toBe('memory:');
    const store = await openStore('memory:');
    expect(store.kind).toBe('memory');
    expect(await store.migrate()).toEqual([]);
    await store.ping();
    await store.close();
    await expect(store.ping()).rejects.toThrow('closed');
  });

  it('refuses every call once closed, as a closed database does, instead of answering as an empty store', async () => {
    const store = await openStore('memory:');
    await store.plants.create('alice', { id: 1n, name: 'Kept' });
    await store.close();
    await expect(store.plants.list('alice', { limit: 10 })).rejects.toThrow('the memory store is closed');
    await expect(store.plants.create('alice', { id: 2n, name: 'New' })).rejects.toThrow('closed');
    await expect(store.plants.delete('alice', 1n)).rejects.toThrow('closed');
    await expect(store.tokens.list()).rejects.toThrow('closed');
    await expect(store.idempotency.sweep(0, 1, 1)).rejects.toThrow('closed');
    await expect(store.webhooks.listSubscriptions()).rejects.toThrow('closed');
  });

  it('keeps plants per owner, in id order, paged exactly beyond 2^53', async () => {
    const store = await openStore('memory:');
    const big = 2n ** 60n;
    expect(await store.plants.create('alice', { id: big, name: 'Big' })).toBe(true);
    expect(await store.plants.create('alice', { id: -1n, name: 'Low', tag: 't' })).toBe(true);
    expect(await store.plants.create('alice', { id: big, name: 'Again' })).toBe(false);
    expect(await store.plants.create('bob', { id: big, name: 'Bobs' })).toBe(true);
    const first = await store.plants.list('alice', { limit: 1 });
    // Two creates of alice's moved her version twice (the refused one did not).
    expect(withText(first)).toEqual({ json: '[{"name":"Low","tag":"t"}]', lastId: -1n, hasMore: true, version: '2' });
    expect(withText(await store.plants.list('alice', { limit: 1, after: -1n }))).toEqual({
      json: '[{"name":"Big"}]',
      lastId: big,
      hasMore: false,
      version: '2',
    });
    expect(await store.plants.delete('alice', big)).toBe(true);
    expect(await store.plants.delete('alice', big)).toBe(false);
    expect(pageText(await store.plants.list('bob', { limit: 10 }))).toBe('[{"name":"Bobs"}]');
  });

  it('stores tokens by hash and revokes them', async () => {
    const store = await openStore('memory:');
    const issued = await issueToken(store.tokens, { subject: 'alice' });
    const [listed] = await store.tokens.list();
    expect(listed).toMatchObject({ id: issued.record.id, subject: 'alice', revokedAt: null });
    expect(await store.tokens.revoke(issued.record.id, new Date())).toBe(true);
    expect(await store.tokens.revoke('tok_unknown', new Date())).toBe(false);
    expect((await store.tokens.list())[0]?.revokedAt).toBeInstanceOf(Date);
  });

  it('queues a webhook delivery with the plant, leases, settles, replays and prunes it', async () => {
    const store = await openStore('memory:');
    let woken = 0;
    store.webhooks.onQueued(() => woken++);
    await store.webhooks.addSubscription({ id: 'wh_1', url: 'https://example.com/h', subject: 'alice', secret: 's1' });
    await store.plants.create('bob', { id: 1n, name: 'Not for wh_1' });
    await store.plants.create('alice', { id: 2n, name: 'Fern' });
    expect(woken).toBe(1);
    const now = Date.now() + 1;
    expect(await store.webhooks.hasDue(now, 4)).toBe(true);
    const [claimed, ...rest] = await store.webhooks.claimDue(now, now + 30_000, 10, 4);
    expect(rest).toEqual([]);
    expect(claimed).toMatchObject({ payload: '{"id":2,"name":"Fern"}', attempts: 0 });
    expect(claimed?.subscription).toEqual({ id: 'wh_1', url: 'https://example.com/h', secrets: ['s1'] });
    expect(await store.webhooks.claimDue(now, now + 30_000, 10, 4)).toEqual([]);
    await store.webhooks.settle(claimed?.id ?? 0, { kind: 'delivered', status: 200 }, now);
    const [delivered] = await store.webhooks.listDeliveries({ failedOnly: false, limit: 10 });
    expect(delivered).toMatchObject({ status: 'delivered', attempts: 1, lastStatus: 200 });
    expect(typeof (await store.webhooks.replay(claimed?.id ?? 0, now))).toBe('number');
    expect(await store.webhooks.replay(999, now)).toBe('unknown');
    expect(await store.webhooks.prune(now + 1)).toBe(1);
    expect(await store.webhooks.rotateSecret('wh_1', 's2', new Date(now + 60_000))).toBe(true);
    const [again] = await store.webhooks.claimDue(now, now + 30_000, 10, 4);
    expect(again?.subscription?.secrets).toEqual(['s2', 's1']);
    await store.webhooks.settle(
      again?.id ?? 0,
      { kind: 'failed', status: 410, error: 'gone', disableSubscription: 'gone' },
      now,
    );
    expect((await store.webhooks.listSubscriptions())[0]).toMatchObject({ enabled: false, disabledReason: 'gone' });
    expect(await store.webhooks.removeSubscription('wh_1')).toBe(true);
    expect(await store.webhooks.listDeliveries({ failedOnly: false, limit: 10 })).toEqual([]);
  });
});
