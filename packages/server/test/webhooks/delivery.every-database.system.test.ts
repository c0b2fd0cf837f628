// Webhook delivery end to end, on the database under test: the real service over a real socket (plants created with
// the real SDK), a real HTTP receiver on loopback, and the worker's schedule shortened through the configuration.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { INT64_MAX } from '@plant-store/contract';
import { createPlantStoreClient, verifyWebhook } from '@plant-store/sdk';
import { startTestServer, type TestServer, waitFor } from '@plant-store/test-kit';
import { type Reply, startWebhookReceiver, type WebhookReceiver } from '@plant-store/test-kit/webhook-receiver';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { addSubscription, rotateSecret } from '../../src/webhooks/subscriptions.js';

const FAST = {
  WEBHOOK_ALLOW_PRIVATE: 'true',
  WEBHOOK_RETRY_FIRST_MS: '10', // retries after ~10 ms, ~600 ms, ~3.6 s, ...
  WEBHOOK_POLL_MS: '50',
  WEBHOOK_TIMEOUT_MS: '2000',
  RATE_LIMIT_MAX: '0',
};

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

async function setUp(
  options: { env?: Record<string, string>; reply?: (request: unknown, index: number) => Reply } = {},
) {
  const receiver = await startWebhookReceiver(options.reply);
  open.push(receiver);
  const server = await startTestServer({ env: { ...FAST, ...options.env } });
  open.push(server);
  const token = await server.token('alice');
  const client = createPlantStoreClient({ baseUrl: server.url, token, retry: { maxRetries: 0 } });
  return { receiver, server, client };
}

async function subscribe(server: TestServer, receiver: WebhookReceiver, subject: string | null = null) {
  return addSubscription(server.store.webhooks, { url: receiver.url, subject, allowPrivate: true });
}

const headersOf = (received: WebhookReceiver['received'][number]) =>
  Object.fromEntries(
    ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [name, String(received.headers[name])]),
  );

describe('webhook delivery', () => {
  it('delivers every acknowledged create within a second, signed, and nothing for a 409 or a 400', async () => {
    const { server, receiver, client } = await setUp();
    const { secret } = await subscribe(server, receiver);
    const acknowledged = new Map<number, number>();
    const plants = [
      { id: INT64_MAX, name: 'Giant' },
      ...Array.from({ length: 15 }, (_, index) => ({
        id: BigInt(index + 1),
        name: `Plant ${index + 1}`,
        tag: 'green',
      })),
    ];
    await Promise.all(
      plants.map(async (plant, index) => {
        await client.plants.create(plant);
        acknowledged.set(index, Date.now());
      }),
    );
    await expect(client.plants.create({ id: 1n, name: 'Duplicate' })).rejects.toMatchObject({ status: 409 });
    const invalid = await fetch(`${server.url}/plants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await server.token('alice')}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 99, name: 'x'.repeat(201) }),
    });
    expect(invalid.status).toBe(400);

    await waitFor('16 deliveries', () => receiver.received.length >= 16, { timeoutMs: 5_000 });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received).toHaveLength(16);
    const latest = Math.max(...acknowledged.values());
    expect(Math.max(...receiver.received.map((request) => request.at)) - latest).toBeLessThan(1_000);

    const verified = [];
    for (const request of receiver.received) {
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.headers['webhook-id']).toMatch(/^msg_/);
      // An independent implementation accepts the signature, and so does the SDK, which reads the exact id.
      expect(new Webhook(secret).verify(request.body, headersOf(request))).toBeTypeOf('object');
      verified.push(await verifyWebhook(request.body, request.headers as Record<string, string>, secret));
    }
    expect(new Set(receiver.received.map((request) => request.headers['webhook-id'])).size).toBe(16);
    expect(verified.find((plant) => plant.name === 'Giant')).toEqual({ id: INT64_MAX, name: 'Giant' });
    expect(receiver.received.map((request) => request.body)).toContain('{"id":9223372036854775807,"name":"Giant"}');
    const ascending = (ids: bigint[]) => ids.sort((a, b) => (a < b ? -1 : 1));
    expect(ascending(verified.map((plant) => BigInt(plant.id)))).toEqual(ascending(plants.map((plant) => plant.id)));
    expect(await server.store.webhooks.listDeliveries({ failedOnly: false, limit: 100 })).toSatisfy((rows) =>
      (rows as { status: string; attempts: number }[]).every((row) => row.status === 'delivered' && row.attempts === 1),
    );
  });

  it("sends only the subscribed principal's plants when a subject is given", async () => {
    const { server, receiver, client } = await setUp();
    await subscribe(server, receiver, 'bob');
    const bob = createPlantStoreClient({
      baseUrl: server.url,
      token: await server.token('bob'),
      retry: { maxRetries: 0 },
    });
    await client.plants.create({ id: 1, name: 'Alice plant' });
    await bob.plants.create({ id: 1, name: 'Bob plant' });
    await waitFor('the delivery', () => receiver.received.length >= 1, { timeoutMs: 5_000 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received.map((request) => request.body)).toEqual(['{"id":1,"name":"Bob plant"}']);
  });

  it('retries a receiver that fails the first 3 times until it succeeds, with the same webhook-id', async () => {
    const { server, receiver, client } = await setUp({
      reply: (_request, index) => ({ status: index < 3 ? 500 : 200 }),
    });
    await subscribe(server, receiver);
    await client.plants.create({ id: 1, name: 'Fern' });
    await waitFor('the fourth attempt', () => receiver.received.length >= 4, { timeoutMs: 15_000 });
    expect(new Set(receiver.received.map((request) => request.headers['webhook-id'])).size).toBe(1);
    const gaps = receiver.received.slice(1).map((request, index) => request.at - receiver.received[index]!.at);
    // ~10 ms, ~600 ms, ~3.6 s (+-20%): exponential, as configured.
    expect(gaps[1]!).toBeGreaterThanOrEqual(450);
    expect(gaps[2]!).toBeGreaterThanOrEqual(2_800);
    await waitFor('settled', async () => {
      const [row] = await server.store.webhooks.listDeliveries({ failedOnly: false, limit: 1 });
      return row?.status === 'delivered' && row.attempts === 4;
    });
  });

  it('honours Retry-After on a 429', async () => {
    const { server, receiver, client } = await setUp({
      reply: (_request, index) => (index === 0 ? { status: 429, headers: { 'retry-after': '2' } } : { status: 200 }),
    });
    await subscribe(server, receiver);
    await client.plants.create({ id: 1, name: 'Fern' });
    await waitFor('the retry', () => receiver.received.length >= 2, { timeoutMs: 10_000 });
    expect(receiver.received[1]!.at - receiver.received[0]!.at).toBeGreaterThanOrEqual(1_990);
  });

  it('marks a delivery failed once the retry period is over', async () => {
    const { server, receiver, client } = await setUp({
      env: { WEBHOOK_RETRY_PERIOD_MS: '1500' },
      reply: () => ({ status: 503 }),
    });
    await subscribe(server, receiver);
    await client.plants.create({ id: 1, name: 'Fern' });
    await waitFor(
      'the failure',
      async () => (await server.store.webhooks.listDeliveries({ failedOnly: true, limit: 1 })).length === 1,
      { timeoutMs: 10_000 },
    );
    const [failed] = await server.store.webhooks.listDeliveries({ failedOnly: true, limit: 1 });
    // Attempts at 0, ~10 ms and ~600 ms; the next (~3.6 s) would fall beyond 1.5 s.
    expect(failed).toMatchObject({ status: 'failed', attempts: 3, lastStatus: 503 });
    expect(failed?.lastError).toMatch(/retry period over/);
    expect(receiver.received).toHaveLength(3);
  });

  it('a 410 disables the subscription: later plants are not sent to it', async () => {
    const { server, receiver, client } = await setUp({ reply: () => ({ status: 410 }) });
    const { id } = await subscribe(server, receiver);
    await client.plants.create({ id: 1, name: 'Fern' });
    await waitFor('the 410', async () => !(await server.store.webhooks.listSubscriptions())[0]?.enabled, {
      timeoutMs: 5_000,
    });
    expect((await server.store.webhooks.listSubscriptions())[0]).toMatchObject({ id, enabled: false });
    await client.plants.create({ id: 2, name: 'Ivy' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received).toHaveLength(1);
  });

  it('gives up on an attempt after the timeout and retries it', async () => {
    const { server, receiver, client } = await setUp({
      env: { WEBHOOK_TIMEOUT_MS: '300' },
      reply: (_request, index) => (index === 0 ? 'hang' : { status: 200 }),
    });
    await subscribe(server, receiver);
    await client.plants.create({ id: 1, name: 'Fern' });
    await waitFor('the retry', () => receiver.received.length >= 2, { timeoutMs: 5_000 });
    expect(receiver.received[1]!.at - receiver.received[0]!.at).toBeGreaterThanOrEqual(300);
    await waitFor('delivered', async () => {
      const [row] = await server.store.webhooks.listDeliveries({ failedOnly: false, limit: 1 });
      return row?.status === 'delivered';
    });
  });

  it('reads at most a small part of an endless answer, and counts the 200', async () => {
    const endless = createServer((request, response) => {
      request.resume();
      response.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const pump = () => {
        while (!response.destroyed && response.write(chunk)) {}
        if (!response.destroyed) response.once('drain', pump);
      };
      pump();
    });
    await new Promise<void>((resolve) => endless.listen(0, '127.0.0.1', resolve));
    open.push({
      close: async () => {
        endless.closeAllConnections();
        await new Promise((resolve) => endless.close(resolve));
      },
    });
    // An answer read to its end (or until the deadline) would end the attempt as a timeout, retried: a delivery
    // settled as delivered on its first attempt, well inside the deadline, read a small part and stopped.
    const timeoutMs = 30_000;
    const { server, client } = await setUp({ env: { WEBHOOK_TIMEOUT_MS: String(timeoutMs) } });
    const url = `http://127.0.0.1:${(endless.address() as AddressInfo).port}/hook`;
    await addSubscription(server.store.webhooks, { url, subject: null, allowPrivate: true });
    const started = Date.now();
    await client.plants.create({ id: 1, name: 'Fern' });
    await waitFor('delivered', async () => {
      const [row] = await server.store.webhooks.listDeliveries({ failedOnly: false, limit: 1 });
      return row?.status === 'delivered';
    });
    expect(Date.now() - started).toBeLessThan(timeoutMs);
    const [row] = await server.store.webhooks.listDeliveries({ failedOnly: false, limit: 1 });
    expect(row).toMatchObject({ status: 'delivered', attempts: 1, lastStatus: 200 });
  }, 60_000);

  it('does not follow redirects', async () => {
    const { server, receiver, client } = await setUp({
      reply: () => ({ status: 307, headers: { location: '/elsewhere' } }),
    });
    await subscribe(server, receiver);
    await client.plants.create({ id: 1, name: 'Fern' });
    await waitFor(
      'the failure',
      async () => (await server.store.webhooks.listDeliveries({ failedOnly: true, limit: 1 })).length === 1,
    );
    expect(receiver.received.map((request) => request.path)).toEqual(['/hook']);
    const [failed] = await server.store.webhooks.listDeliveries({ failedOnly: true, limit: 1 });
    expect(failed?.lastError).toMatch(/redirects are not followed/);
  });

  it('refuses http and private addresses (after DNS) without WEBHOOK_ALLOW_PRIVATE', async () => {
    const { server, receiver, client } = await setUp({ env: { WEBHOOK_ALLOW_PRIVATE: 'false' } });
    const port = new URL(receiver.url).port;
    // Stored directly, as if added while allowed: the rules hold at delivery time, whatever was stored.
    const urls = [receiver.url, `https://127.0.0.1:${port}/hook`, `https://localhost:${port}/hook`];
    for (const url of urls) {
      await server.store.webhooks.addSubscription({
        id: `wh_${urls.indexOf(url)}`,
        url,
        subject: null,
        secret: 'whsec_AAAA',
      });
    }
    await client.plants.create({ id: 1, name: 'Fern' });
    await waitFor(
      'three failures',
      async () => (await server.store.webhooks.listDeliveries({ failedOnly: true, limit: 10 })).length === 3,
    );
    const errors = (await server.store.webhooks.listDeliveries({ failedOnly: true, limit: 10 })).map(
      (row) => row.lastError,
    );
    expect(errors.sort()).toEqual([
      expect.stringMatching(/^127\.0\.0\.1 is not a public address/),
      expect.stringMatching(/^localhost resolves to .* which is not a public address/),
      expect.stringMatching(/^only https URLs/),
    ]);
    expect(receiver.received).toHaveLength(0);
  });

  it('a subscription added while the service runs takes effect at once, without a restart', async () => {
    const { server, receiver, client } = await setUp();
    await client.plants.create({ id: 1, name: 'Before' });
    await subscribe(server, receiver);
    const created = Date.now();
    await client.plants.create({ id: 2, name: 'After' });
    await waitFor('the delivery', () => receiver.received.length >= 1, { timeoutMs: 2_000 });
    expect(receiver.received[0]!.at - created).toBeLessThan(1_000);
    expect(receiver.received.map((request) => request.body)).toEqual(['{"id":2,"name":"After"}']);
  });

  it('signs with the old and the new secret while a rotation overlaps', async () => {
    const { server, receiver, client } = await setUp();
    const { id, secret: old } = await subscribe(server, receiver);
    const rotated = await rotateSecret(server.store.webhooks, id, 60_000);
    await client.plants.create({ id: 1, name: 'Fern' });
    await waitFor('the delivery', () => receiver.received.length >= 1, { timeoutMs: 5_000 });
    const [request] = receiver.received;
    expect(String(request!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const secret of [old, rotated!]) {
      expect(new Webhook(secret).verify(request!.body, headersOf(request!))).toEqual({ id: 1, name: 'Fern' });
      expect(await verifyWebhook(request!.body, headersOf(request!), secret)).toEqual({ id: 1, name: 'Fern' });
    }
  });
});
