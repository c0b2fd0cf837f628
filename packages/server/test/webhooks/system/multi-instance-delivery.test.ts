// Several service processes sharing one database share the delivery work without double-sending in the normal case:
// two instances on one PostgreSQL (FOR UPDATE SKIP LOCKED leases), and two processes on one SQLite file (a lease
// claimed in a write transaction). Plants are created through both; each event reaches the receiver once.
import { createTestDatabase, type TestDatabase, waitFor } from '@plant-store/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { issueToken } from '../../../src/auth/tokens.js';
import { openStore } from '../../../src/store/open-store.js';
import { addSubscription } from '../../../src/webhooks/subscriptions.js';
import { type ServerProcess, startServerProcess } from '../../support/process.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver.js';

const processes: ServerProcess[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const server of processes.splice(0)) server.child.kill('SIGTERM');
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
  await new Promise((resolve) => setTimeout(resolve, 500)); // room for a second copy, should one be sent
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
});
