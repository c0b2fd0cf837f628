// Nothing acknowledged is lost across a crash or a restart, on the database under test: the service is a real
// process, SIGKILLed while its deliveries are in flight (the receiver holds them unanswered), then started again;
// every event still arrives. SIGTERM abandons in-flight deliveries within the grace and the next start sends them.
import { createTestDatabase, type TestDatabase, waitFor } from '@plant-store/test-kit';
import { type ServerProcess, startServerProcess } from '@plant-store/test-kit/server-process';
import { startWebhookReceiver, type WebhookReceiver } from '@plant-store/test-kit/webhook-receiver';
import { afterEach, describe, expect, it } from 'vitest';
import { issueToken } from '../../src/auth/tokens.js';
import { openStore } from '../../src/store/open-store.js';
import { addSubscription } from '../../src/webhooks/subscriptions.js';

let database: TestDatabase;
let receiver: WebhookReceiver;
const processes: ServerProcess[] = [];

afterEach(async () => {
  for (const server of processes.splice(0)) {
    server.child.kill('SIGKILL');
    await server.exited;
  }
  await receiver.close();
  await database.drop();
});

/** A database with a subscription to a receiver that holds every request unanswered, and a token. */
async function prepare(): Promise<string> {
  database = createTestDatabase();
  receiver = await startWebhookReceiver(() => 'hang');
  const store = await openStore(database.url);
  try {
    await store.migrate();
    await addSubscription(store.webhooks, { url: receiver.url, subject: null, allowPrivate: true });
    return (await issueToken(store.tokens, { subject: 'alice' })).token;
  } finally {
    await store.close();
  }
}

async function start(env: Record<string, string> = {}): Promise<ServerProcess> {
  const server = await startServerProcess({
    DATABASE_URL: database.url,
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_TIMEOUT_MS: '1000', // lease: 3 s
    WEBHOOK_RETRY_FIRST_MS: '10',
    WEBHOOK_POLL_MS: '50',
    ...env,
  });
  processes.push(server);
  return server;
}

async function createPlants(url: string, token: string, count: number): Promise<void> {
  for (let id = 1; id <= count; id++) {
    const response = await fetch(`${url}/plants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id, name: `Plant ${id}` }),
    });
    expect(response.status).toBe(200);
  }
}

/** The plant ids the receiver answered 200 for, once `count` distinct ones have been. */
async function waitForAllAnswered(answered: Set<string>, count: number) {
  await waitFor(`${count} plants delivered`, () => answered.size === count, { timeoutMs: 20_000 });
}

describe('webhook delivery across crashes and restarts', () => {
  it('SIGKILL between the commit and the delivery: the next start delivers every acknowledged plant', async () => {
    const token = await prepare();
    const first = await start();
    await createPlants(first.url, token, 5);
    // The deliveries have left (the receiver holds them) but none has been answered: kill the service now.
    await waitFor('deliveries in flight', () => receiver.received.length >= 5, { timeoutMs: 5_000 });
    first.child.kill('SIGKILL');
    await first.exited;

    const answered = new Set<string>();
    receiver.answer((request) => {
      answered.add(request.body);
      return { status: 200 };
    });
    await start();
    await waitForAllAnswered(answered, 5);
    expect([...answered].sort()).toEqual([1, 2, 3, 4, 5].map((id) => `{"id":${id},"name":"Plant ${id}"}`).sort());
  });

  it('SIGTERM abandons in-flight deliveries within the grace; the next start sends them at once', async () => {
    const token = await prepare();
    const first = await start({ SHUTDOWN_TIMEOUT_MS: '2000', WEBHOOK_TIMEOUT_MS: '30000' });
    await createPlants(first.url, token, 3);
    await waitFor('deliveries in flight', () => receiver.received.length >= 3, { timeoutMs: 5_000 });
    const stopping = Date.now();
    first.child.kill('SIGTERM');
    expect(await first.exited, first.output()).toBe(0);
    // Grace: min(attempt timeout, a quarter of the shutdown timeout) = 500 ms, not the 30 s attempt timeout.
    expect(Date.now() - stopping).toBeLessThan(5_000);

    const answered = new Set<string>();
    receiver.answer((request) => {
      answered.add(request.body);
      return { status: 200 };
    });
    const restarted = Date.now();
    // Released, not leased: due at once rather than after the 61 s lease of a 30 s timeout.
    await start({ WEBHOOK_TIMEOUT_MS: '30000' });
    await waitForAllAnswered(answered, 3);
    expect(Date.now() - restarted).toBeLessThan(15_000);
  });
});
