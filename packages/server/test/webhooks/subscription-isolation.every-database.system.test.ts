// One tenant's dead receiver must not delay another's deliveries: a receiver that accepts and never answers, subscribed
// to one principal with many creates (and more arriving), beside a healthy receiver subscribed to another. Each
// subscription is a queue with its own cap, so the healthy one's events still arrive at once; the dead
// one is held to its cap, then its circuit opens. On the database under test, the real service over a real socket.
// The dead receiver's attempts have a deadline far beyond the test (HANG_TIMEOUT_MS): none of them ends while it runs,
// however loaded the machine, so every request it got was open at once and the count is the cap; Bob's delays are
// judged against that deadline.
import { createPlantStoreClient } from '@plant-store/sdk';
import { startTestServer, waitFor } from '@plant-store/test-kit';
import { startWebhookReceiver } from '@plant-store/test-kit/webhook-receiver';
import { afterEach, describe, expect, it } from 'vitest';
import { addSubscription } from '../../src/webhooks/subscriptions.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

/** The hanging receiver's attempt deadline: far beyond the test, so no attempt ends (and frees a slot) during it. */
const HANG_TIMEOUT_MS = 120_000;

describe('a hanging receiver beside a healthy one', () => {
  it("the healthy subscription's events arrive at once while the other hangs", async () => {
    const hanging = await startWebhookReceiver(() => 'hang');
    const healthy = await startWebhookReceiver();
    open.push(hanging, healthy);
    const server = await startTestServer({
      env: {
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_TIMEOUT_MS: String(HANG_TIMEOUT_MS),
        WEBHOOK_PER_SUBSCRIPTION: '4',
        WEBHOOK_CIRCUIT_FAILURES: '4',
        RATE_LIMIT_MAX: '0',
      },
    });
    open.push(server);
    const alice = createPlantStoreClient({ baseUrl: server.url, token: await server.token('alice') });
    const bob = createPlantStoreClient({ baseUrl: server.url, token: await server.token('bob') });
    await addSubscription(server.store.webhooks, { url: hanging.url, subject: 'alice', allowPrivate: true });
    await addSubscription(server.store.webhooks, { url: healthy.url, subject: 'bob', allowPrivate: true });

    await Promise.all(Array.from({ length: 64 }, (_, index) => alice.plants.create({ id: index, name: `A${index}` })));
    await waitFor('the hanging receiver to hold its attempts', () => hanging.received.length >= 4, {
      timeoutMs: 5_000,
    });
    // Alice keeps creating while Bob's plants are created one by one: each reaches Bob's receiver within a second.
    let more = 64;
    const pressure = setInterval(() => void alice.plants.create({ id: more++, name: 'more' }).catch(() => {}), 20);
    try {
      const delays: number[] = [];
      for (let id = 1; id <= 5; id++) {
        const created = Date.now();
        await bob.plants.create({ id, name: `B${id}` });
        await waitFor(`Bob's delivery ${id}`, () => healthy.received.length >= id, { timeoutMs: 10_000 });
        delays.push(healthy.received[id - 1]!.at - created);
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
      // Not queued behind Alice's attempts, which end only at their deadline: tens of milliseconds on an idle machine,
      // and 5 s leaves room for a loaded one while staying far inside that deadline.
      expect(Math.max(...delays)).toBeLessThan(5_000);
    } finally {
      clearInterval(pressure);
    }
    // The dead receiver was given its cap and never more: every one of its requests is still open.
    expect(hanging.received.length).toBe(4);
    expect(await hanging.connections()).toBe(4);
  }, 90_000);

  it('opens the circuit of a receiver that keeps hanging, then sends its backlog once it answers again', async () => {
    const flaky = await startWebhookReceiver(() => 'hang');
    open.push(flaky);
    const server = await startTestServer({
      env: {
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_TIMEOUT_MS: '300',
        WEBHOOK_RETRY_FIRST_MS: '100',
        WEBHOOK_PER_SUBSCRIPTION: '2',
        WEBHOOK_CIRCUIT_FAILURES: '2',
        WEBHOOK_CIRCUIT_OPEN_MS: '1500',
        WEBHOOK_POLL_MS: '50',
        RATE_LIMIT_MAX: '0',
      },
    });
    open.push(server);
    const alice = createPlantStoreClient({ baseUrl: server.url, token: await server.token('alice') });
    const { id } = await addSubscription(server.store.webhooks, { url: flaky.url, subject: null, allowPrivate: true });
    await Promise.all(Array.from({ length: 10 }, (_, index) => alice.plants.create({ id: index, name: `P${index}` })));
    await waitFor(
      'the circuit to open',
      async () => (await server.store.webhooks.listSubscriptions())[0]?.circuitOpenUntil !== null,
      { timeoutMs: 5_000 },
    );
    const opened = flaky.received.length;
    // While open (1.5 s), nothing is sent at all, however much is due.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(flaky.received.length).toBe(opened);
    flaky.answer(() => ({ status: 204 }));
    await waitFor(
      'every plant delivered',
      async () =>
        (await server.store.webhooks.listDeliveries({ failedOnly: false, limit: 100 })).every(
          (row) => row.status === 'delivered',
        ),
      { timeoutMs: 10_000 },
    );
    expect((await server.store.webhooks.listSubscriptions())[0]).toMatchObject({
      id,
      failureStreak: 0,
      circuitOpenUntil: null,
    });
  });
});
