// Several service processes sharing one database share the delivery work without double-sending in the normal case:
// two instances on one PostgreSQL (FOR UPDATE SKIP LOCKED leases), and two processes on one SQLite file (a lease
// claimed in a write transaction). Plants are created through both; each event reaches the receiver once.
import { createTestDatabase, type TestDatabase, waitFor } from '@plant-store/test-kit';
import { type ServerProcess, startServerProcess, stopAll } from '@plant-store/test-kit/server-process';
import { startWebhookReceiver, type WebhookReceiver } from '@plant-store/test-kit/webhook-receiver';
import { afterEach, describe, expect, it } from 'vitest';
import { issueToken } from '../../src/auth/tokens.js';
import { openStore } from '../../src/store/open-store.js';
import { addSubscription } from '../../src/webhooks/subscriptions.js';

const processes: ServerProcess[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  // The instances are gone before their schema is dropped: a DROP SCHEMA ... CASCADE beside an instance still
  // shutting down (its worker holding row locks) failed with "deadlock detected" under load.
  await stopAll(processes.splice(0));
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function twoInstancesDeliverOnce(database: TestDatabase) {
  const receiver: WebhookReceiver = await startWebhookReceiver();
  cleanups.push(
    () => database.drop(),
    () => receiver.close(),
  );
  const store = await openStore(database.url);
  let token: string;
  try {
    await store.migrate();
    await addSubscription(store.webhooks, { url: receiver.url, subject: null, allowPrivate: true });
    token = (await issueToken(store.tokens, { subject: 'alice' })).token;
  } finally {
    await store.close();
  }
  const env = { DATABASE_URL: database.url, WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '20', RATE_LIMIT_MAX: '0' };
  const instances = await Promise.all([startServerProcess(env), startServerProcess(env)]);
  processes.push(...instances);
  const count = 120;
  await Promise.all(
    Array.from({ length: count }, async (_, index) => {
      const response = await fetch(`${instances[index % 2]!.url}/plants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id: index, name: `Plant ${index}` }),
      });
      expect(response.status).toBe(200);
    }),
  );
  const ids = () => new Set(receiver.received.map((request) => request.headers['webhook-id']));
  await waitFor(`${count} events`, () => ids().size === count, { timeoutMs: 20_000 });
  // A second copy of an event, should one be sent, could still be on its way: stop both instances (SIGTERM lets a
  // send in flight finish) and wait until the receiver has read every connection they opened. Nothing can arrive after.
  await stopAll(instances);
  await waitFor('the receiver to read every request', async () => (await receiver.connections()) === 0);
  expect(receiver.received).toHaveLength(count);
  expect(new Set(receiver.received.map((request) => request.body)).size).toBe(count);
}

describe('several instances on one database', () => {
  it('two instances on one PostgreSQL deliver each event once', async () => {
    await twoInstancesDeliverOnce(createTestDatabase('postgres'));
  });

  it('two processes on one SQLite file deliver each event once', async () => {
    await twoInstancesDeliverOnce(createTestDatabase('sqlite'));
  });

  it("two instances on one PostgreSQL: a hanging receiver gets its cap in all, and another's events arrive at once", async () => {
    const database = createTestDatabase('postgres');
    const hanging = await startWebhookReceiver(() => 'hang');
    const healthy = await startWebhookReceiver();
    cleanups.push(
      () => database.drop(),
      () => hanging.close(),
      () => healthy.close(),
    );
    const store = await openStore(database.url);
    const tokens: Record<string, string> = {};
    try {
      await store.migrate();
      await addSubscription(store.webhooks, { url: hanging.url, subject: 'alice', allowPrivate: true });
      await addSubscription(store.webhooks, { url: healthy.url, subject: 'bob', allowPrivate: true });
      for (const subject of ['alice', 'bob']) tokens[subject] = (await issueToken(store.tokens, { subject })).token;
    } finally {
      await store.close();
    }
    const env = {
      DATABASE_URL: database.url,
      WEBHOOK_ALLOW_PRIVATE: 'true',
      // Far beyond the test: no attempt at the dead receiver ends (freeing a slot) while it runs, however loaded.
      WEBHOOK_TIMEOUT_MS: '120000',
      WEBHOOK_PER_SUBSCRIPTION: '4',
      RATE_LIMIT_MAX: '0',
    };
    const instances = await Promise.all([startServerProcess(env), startServerProcess(env)]);
    processes.push(...instances);
    const create = (instance: ServerProcess, subject: string, id: number) =>
      fetch(`${instance.url}/plants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens[subject]}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id, name: `${subject} ${id}` }),
      });
    const responses = await Promise.all(Array.from({ length: 64 }, (_, id) => create(instances[id % 2]!, 'alice', id)));
    expect(responses.every((response) => response.status === 200)).toBe(true);
    await waitFor('the hanging receiver to hold its attempts', () => hanging.received.length >= 4, {
      timeoutMs: 5_000,
    });
    const delays: number[] = [];
    for (let id = 1; id <= 3; id++) {
      const created = Date.now();
      expect((await create(instances[id % 2]!, 'bob', id)).status).toBe(200);
      await waitFor(`Bob's delivery ${id}`, () => healthy.received.length >= id, { timeoutMs: 10_000 });
      delays.push(healthy.received[id - 1]!.at - created);
    }
    // Not queued behind the dead receiver's attempts (they end only at their deadline), with room for a loaded machine.
    expect(Math.max(...delays)).toBeLessThan(5_000);
    // Both instances together never held more than the subscription's cap of requests open at the dead receiver.
    expect(hanging.received.length).toBe(4);
    expect(await hanging.connections()).toBe(4);
  }, 90_000);
});
