// The webhook outbox on the engine under test (SQLite by default; memory and PostgreSQL in the -memory and -postgres
// projects): deliveries queued in the plant's own transaction, for the matching subscriptions only; atomic leases;
// settling, replaying, rotating, removing and pruning.
import { INT64_MAX } from '@plant-store/contract';
import { TEST_DATABASE, useTestStore } from '@plant-store/test-kit';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.js';

const testStore = useTestStore();
let store: Store;
let clock = Date.now() + 1_000;
let next = 0;

/** A fresh subscription id and owner per test, so tests share the database without seeing each other's rows. */
const fresh = (prefix: string) => `${prefix}_${++next}_${Math.random().toString(36).slice(2, 8)}`;
/**
 * A moment a second past the last one and never behind the real clock: deliveries are queued at Date.now(), and on a
 * loaded machine real time can outrun a clock that only counted seconds from when the file loaded (a claim "later"
 * would then come before the delivery was due, and find nothing).
 */
const later = () => (clock = Math.max(clock, Date.now()) + 1_000);

beforeAll(() => {
  store = testStore.store;
});
beforeEach(async () => {
  // Every test starts with no subscriptions and no deliveries.
  for (const subscription of await store.webhooks.listSubscriptions()) {
    await store.webhooks.removeSubscription(subscription.id);
  }
});

async function subscribe(subject: string | null = null) {
  const id = fresh('wh');
  await store.webhooks.addSubscription({ id, url: 'https://example.com/hook', subject, secret: `whsec_${id}` });
  return id;
}

async function claimAll() {
  return store.webhooks.claimDue(later(), clock + 60_000, 1_000, 1_000);
}

describe(`${TEST_DATABASE} webhook outbox`, () => {
  it('queues one delivery per matching subscription in the create, and none for a refused duplicate', async () => {
    const ann = fresh('ann');
    const everyone = await subscribe();
    const annOnly = await subscribe(ann);
    await subscribe(fresh('somebody-else'));
    expect(await store.plants.create(ann, { id: INT64_MAX, name: 'Fern "the first"' })).toBe(true);
    expect(await store.plants.create(ann, { id: INT64_MAX, name: 'Again' })).toBe(false);
    expect(await store.plants.create(fresh('bob'), { id: 1n, name: 'Ivy', tag: 'green' })).toBe(true);
    const claimed = await claimAll();
    const bySubscription = (id: string) => claimed.filter((delivery) => delivery.subscription?.id === id);
    expect(bySubscription(annOnly).map((delivery) => delivery.payload)).toEqual([
      '{"id":9223372036854775807,"name":"Fern \\"the first\\""}',
    ]);
    expect(
      bySubscription(everyone)
        .map((delivery) => delivery.payload)
        .sort(),
    ).toEqual(['{"id":1,"name":"Ivy","tag":"green"}', '{"id":9223372036854775807,"name":"Fern \\"the first\\""}']);
    expect(claimed).toHaveLength(3);
    // One event, one webhook-id, whichever subscription receives it.
    const annEvent = bySubscription(annOnly)[0]!.eventId;
    expect(annEvent).toMatch(/^msg_[A-Za-z0-9_-]{22}$/);
    expect(bySubscription(everyone).map((delivery) => delivery.eventId)).toContain(annEvent);
  });

  it('queues nothing and wakes nobody without a subscription; wakes the worker after a commit that queued', async () => {
    let wakes = 0;
    const unsubscribe = store.webhooks.onQueued(() => wakes++);
    try {
      await store.plants.create(fresh('ann'), { id: 1n, name: 'Fern' });
      expect(wakes).toBe(0);
      expect(await store.webhooks.hasDue(later(), 1_000)).toBe(false);
      await subscribe();
      await store.plants.create(fresh('ann'), { id: 1n, name: 'Fern' });
      expect(wakes).toBe(1);
      expect(await store.webhooks.hasDue(later(), 1_000)).toBe(true);
    } finally {
      unsubscribe();
    }
  });

  it('every concurrent create that is acknowledged has its delivery, and refused ones have none', async () => {
    await subscribe();
    const owner = fresh('racer');
    // Duplicates in the same batch (SQLite group commit) and in parallel statements (PostgreSQL).
    const ids = Array.from({ length: 60 }, (_, index) => BigInt(index % 40));
    const results = await Promise.all(ids.map((id) => store.plants.create(owner, { id, name: `P${id}` })));
    expect(results.filter(Boolean)).toHaveLength(40);
    const payloads = (await claimAll())
      .map((delivery) => JSON.parse(delivery.payload).id as number)
      .sort((a, b) => a - b);
    expect(payloads).toEqual(Array.from({ length: 40 }, (_, index) => index));
  });

  it('leases atomically: concurrent claims never share a delivery, and a lease that runs out is due again', async () => {
    await subscribe();
    const owner = fresh('lease');
    for (let id = 0n; id < 30n; id++) await store.plants.create(owner, { id, name: 'P' });
    const now = later();
    const claims = await Promise.all(
      Array.from({ length: 4 }, () => store.webhooks.claimDue(now, now + 5_000, 10, 1_000)),
    );
    const ids = claims.flat().map((delivery) => delivery.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(30);
    expect(await store.webhooks.hasDue(now + 4_999, 1_000)).toBe(false);
    expect(await store.webhooks.claimDue(now + 4_999, now + 9_000, 100, 1_000)).toEqual([]);
    expect(await store.webhooks.claimDue(now + 5_000, now + 9_000, 100, 1_000)).toHaveLength(30);
  });

  it('settles: retried later, delivered, failed (listed with --failed), and 410 disables the subscription', async () => {
    const sub = await subscribe();
    const owner = fresh('settle');
    for (let id = 1n; id <= 4n; id++) await store.plants.create(owner, { id, name: 'P' });
    const [a, b, c, d] = (await claimAll()).sort((x, y) => x.id - y.id);
    const now = clock;
    await store.webhooks.settle(a!.id, { kind: 'retry', at: now + 10_000, status: 503, error: 'HTTP 503' }, now);
    await store.webhooks.settle(b!.id, { kind: 'delivered', status: 204 }, now);
    await store.webhooks.settle(c!.id, { kind: 'failed', status: 404, error: 'HTTP 404' }, now);
    const listed = await store.webhooks.listDeliveries({ failedOnly: false, limit: 10 });
    expect(listed.map((row) => [row.id, row.status, row.attempts, row.lastStatus])).toEqual([
      [d!.id, 'pending', 0, null],
      [c!.id, 'failed', 1, 404],
      [b!.id, 'delivered', 1, 204],
      [a!.id, 'pending', 1, 503],
    ]);
    expect(listed.find((row) => row.id === a!.id)).toMatchObject({
      nextAttemptAt: now + 10_000,
      lastError: 'HTTP 503',
    });
    expect((await store.webhooks.listDeliveries({ failedOnly: true, limit: 10 })).map((row) => row.id)).toEqual([
      c!.id,
    ]);

    await store.webhooks.settle(
      d!.id,
      { kind: 'failed', status: 410, error: 'HTTP 410', disableSubscription: 'gone' },
      now,
    );
    expect((await store.webhooks.listSubscriptions()).find((row) => row.id === sub)).toMatchObject({
      enabled: false,
      disabledReason: 'gone',
    });
    // The retry still pending for it fails with it, and new plants queue nothing for it.
    expect((await store.webhooks.listDeliveries({ failedOnly: true, limit: 10 })).map((row) => row.id).sort()).toEqual(
      [a!.id, c!.id, d!.id].sort(),
    );
    await store.plants.create(owner, { id: 5n, name: 'P' });
    expect(await store.webhooks.hasDue(later() + 100_000, 1_000)).toBe(false);
  });

  it('replays a delivery as a new one with the same webhook-id and body, due at once', async () => {
    const sub = await subscribe();
    await store.plants.create(fresh('replay'), { id: 7n, name: 'Fern' });
    const [original] = await claimAll();
    await store.webhooks.settle(original!.id, { kind: 'failed', status: 400, error: 'HTTP 400' }, clock);
    const copy = await store.webhooks.replay(original!.id, later());
    expect(copy).toBeTypeOf('number');
    const [again] = await claimAll();
    expect(again).toMatchObject({ id: copy, eventId: original!.eventId, payload: original!.payload, attempts: 0 });
    expect(await store.webhooks.replay(987_654_321, clock)).toBe('unknown');
    await store.webhooks.settle(
      again!.id,
      { kind: 'failed', status: 410, error: 'HTTP 410', disableSubscription: 'gone' },
      clock,
    );
    expect(await store.webhooks.replay(original!.id, clock)).toBe('disabled');
    expect(await store.webhooks.removeSubscription(sub)).toBe(true);
    expect(await store.webhooks.replay(original!.id, clock)).toBe('unknown');
  });

  it('queues no copy of an event still pending to the subscription, naming the pending delivery', async () => {
    await subscribe();
    await store.plants.create(fresh('pending'), { id: 8n, name: 'Moss' });
    const [original] = await claimAll();
    // Leased (an attempt in flight) or waiting for its retry: either way it will still be sent.
    expect(await store.webhooks.replay(original!.id, later())).toEqual({ pending: original!.id });
    await store.webhooks.settle(
      original!.id,
      { kind: 'retry', at: clock + 500, status: 503, error: 'HTTP 503' },
      clock,
    );
    expect(await store.webhooks.replay(original!.id, later())).toEqual({ pending: original!.id });
    expect(await claimAll()).toHaveLength(1);
    await store.webhooks.settle(original!.id, { kind: 'delivered', status: 200 }, clock);
    const copy = await store.webhooks.replay(original!.id, later());
    expect(copy).toBeTypeOf('number');
    // The copy is now the pending one: replaying the delivered original again names it and queues nothing.
    expect(await store.webhooks.replay(original!.id, later())).toEqual({ pending: copy });
    expect(await claimAll()).toHaveLength(1);
  });

  it('rotates a secret: both sign until the overlap ends, then only the new one', async () => {
    const sub = await subscribe();
    const until = later() + 60_000;
    expect(await store.webhooks.rotateSecret(sub, 'whsec_new', new Date(until))).toBe(true);
    expect(await store.webhooks.rotateSecret('wh_unknown', 'whsec_x', new Date(until))).toBe(false);
    expect((await store.webhooks.listSubscriptions())[0]?.previousSecretUntil?.getTime()).toBe(until);
    const owner = fresh('rotate');
    await store.plants.create(owner, { id: 1n, name: 'P' });
    const [during] = await store.webhooks.claimDue(later(), clock + 1, 10, 1_000);
    expect(during?.subscription?.secrets).toEqual(['whsec_new', `whsec_${sub}`]);
    await store.plants.create(owner, { id: 2n, name: 'P' });
    const [after] = await store.webhooks.claimDue(until + 1, until + 2, 10, 1_000);
    expect(after?.subscription?.secrets).toEqual(['whsec_new']);
  });

  it('removes a subscription with its deliveries, and prunes finished deliveries past retention', async () => {
    const keep = await subscribe();
    const gone = await subscribe();
    await store.plants.create(fresh('prune'), { id: 1n, name: 'P' });
    expect(await store.webhooks.removeSubscription(gone)).toBe(true);
    expect(await store.webhooks.removeSubscription(gone)).toBe(false);
    const [left] = await claimAll();
    expect(left?.subscription?.id).toBe(keep);
    await store.webhooks.settle(left!.id, { kind: 'delivered', status: 200 }, clock);
    expect(await store.webhooks.prune(clock)).toBe(0);
    expect(await store.webhooks.prune(clock + 1)).toBe(1);
    expect(await store.webhooks.listDeliveries({ failedOnly: false, limit: 10 })).toEqual([]);
  });

  it("caps each subscription's leases across concurrent claimers, and takes turns between subscriptions", async () => {
    const busy = await subscribe(fresh('busy'));
    const quiet = await subscribe(fresh('quiet'));
    const subjects = (await store.webhooks.listSubscriptions()).map((row) => [row.id, row.subject] as const);
    const subjectOf = (id: string) => subjects.find(([sub]) => sub === id)![1]!;
    for (let id = 0n; id < 40n; id++) await store.plants.create(subjectOf(busy), { id, name: 'P' });
    await store.plants.create(subjectOf(quiet), { id: 1n, name: 'Q' });
    const now = later();
    // Eight claimers at once, as eight instances would: together they never lease more than 3 of one queue.
    const claims = await Promise.all(Array.from({ length: 8 }, () => store.webhooks.claimDue(now, now + 5_000, 10, 3)));
    const claimed = claims.flat();
    expect(new Set(claimed.map((delivery) => delivery.id)).size).toBe(claimed.length);
    expect(claimed.filter((delivery) => delivery.subscription?.id === busy)).toHaveLength(3);
    expect(claimed.filter((delivery) => delivery.subscription?.id === quiet)).toHaveLength(1);
    // At its cap, the busy queue is not due; a settled lease makes room for one more.
    expect(await store.webhooks.hasDue(now + 1, 3)).toBe(false);
    expect(await store.webhooks.claimDue(now + 1, now + 5_000, 10, 3)).toEqual([]);
    const first = claimed.find((delivery) => delivery.subscription?.id === busy)!;
    await store.webhooks.settle(first.id, { kind: 'delivered', status: 200 }, now + 2, { kind: 'answered' });
    expect(await store.webhooks.hasDue(now + 3, 3)).toBe(true);
    expect(await store.webhooks.claimDue(now + 3, now + 5_000, 10, 3)).toHaveLength(1);
    // Leases that run out no longer count (their holder died): the queue is due again, up to its cap.
    const again = await store.webhooks.claimDue(now + 5_001, now + 9_000, 10, 3);
    expect(again.filter((delivery) => delivery.subscription?.id === busy)).toHaveLength(3);
    expect((await store.webhooks.queues(now + 5_002)).find((queue) => queue.subscriptionId === busy)).toEqual({
      subscriptionId: busy,
      pending: 39,
      leased: 3,
      oldestCreatedAt: expect.any(Number),
      circuitOpenUntil: null,
    });
  });

  it("opens a failing subscription's circuit, probes one at a time once it is due, and closes on an answer", async () => {
    const owner = fresh('circuit');
    const sub = await subscribe(owner);
    for (let id = 0n; id < 10n; id++) await store.plants.create(owner, { id, name: 'P' });
    const policy = { kind: 'failed', failures: 2, openMs: 1_000, maxOpenMs: 10_000 } as const;
    const now = later();
    const fail = (id: number, at: number) =>
      store.webhooks.settle(id, { kind: 'retry', at, status: null, error: 'no answer' }, at, policy);
    const [a, b, c] = await store.webhooks.claimDue(now, now + 60_000, 3, 4);
    await fail(a!.id, now);
    expect((await store.webhooks.listSubscriptions())[0]).toMatchObject({ failureStreak: 1, circuitOpenUntil: null });
    await fail(b!.id, now);
    expect((await store.webhooks.listSubscriptions())[0]).toMatchObject({
      failureStreak: 2,
      circuitOpenUntil: new Date(now + 1_000),
    });
    // An attempt that started before the circuit opened fails too: the circuit stays open as it was.
    await fail(c!.id, now + 10);
    expect((await store.webhooks.listSubscriptions())[0]?.circuitOpenUntil).toEqual(new Date(now + 1_000));
    // Open: nothing is due or claimed, whatever waits.
    expect(await store.webhooks.hasDue(now + 999, 4)).toBe(false);
    expect(await store.webhooks.claimDue(now + 999, now + 60_000, 10, 4)).toEqual([]);
    // Half open: one probe at a time; it fails, and the circuit opens again for twice as long.
    const [probe, ...more] = await store.webhooks.claimDue(now + 1_000, now + 60_000, 10, 4);
    expect(more).toEqual([]);
    expect(await store.webhooks.claimDue(now + 1_001, now + 60_000, 10, 4)).toEqual([]);
    await fail(probe!.id, now + 1_100);
    expect((await store.webhooks.listSubscriptions())[0]?.circuitOpenUntil).toEqual(new Date(now + 3_100));
    // The next probe is answered: closed, and the queue's full cap is back.
    const [next] = await store.webhooks.claimDue(now + 3_100, now + 60_000, 10, 4);
    await store.webhooks.settle(next!.id, { kind: 'delivered', status: 204 }, now + 3_200, { kind: 'answered' });
    expect((await store.webhooks.listSubscriptions())[0]).toMatchObject({
      id: sub,
      failureStreak: 0,
      circuitOpenUntil: null,
    });
    expect(await store.webhooks.claimDue(now + 3_300, now + 60_000, 10, 4)).toHaveLength(4);
  });

  it('enables a subscription a 410 disabled, and expires deliveries whose retry period ran out unattempted', async () => {
    const owner = fresh('enable');
    const sub = await subscribe(owner);
    await store.plants.create(owner, { id: 1n, name: 'P' });
    const [gone] = await claimAll();
    await store.webhooks.settle(
      gone!.id,
      { kind: 'failed', status: 410, error: 'HTTP 410', disableSubscription: 'gone' },
      clock,
    );
    expect(await store.webhooks.enableSubscription(sub)).toBe(true);
    expect(await store.webhooks.enableSubscription('wh_unknown')).toBe(false);
    expect((await store.webhooks.listSubscriptions())[0]).toMatchObject({ enabled: true, disabledReason: null });
    await store.plants.create(owner, { id: 2n, name: 'P' });
    await store.plants.create(owner, { id: 3n, name: 'P' });
    const [leased] = await store.webhooks.claimDue(later(), clock + 60_000, 1, 4);
    // The other one waited past its retry period (say, behind an open circuit): failed without an attempt.
    expect(await store.webhooks.expire(later() + 1, clock)).toBe(1);
    const failed = await store.webhooks.listDeliveries({ failedOnly: true, limit: 10 });
    expect(failed.map((row) => row.id)).not.toContain(leased!.id);
    expect(failed[0]?.lastError).toMatch(/retry period over/);
  });
});
