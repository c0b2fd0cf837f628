// Webhook metrics as an operator scrapes them, on the database under test: attempts by outcome, retries, deliveries
// in flight, and each subscription's backlog, oldest pending age, leases and circuit, labelled by subscription id only.
import { createPlantStoreClient } from '@plant-store/sdk';
import { startTestServer, waitFor } from '@plant-store/test-kit';
import { parseSamples, sampleValue } from '@plant-store/test-kit/prometheus-samples';
import { startWebhookReceiver } from '@plant-store/test-kit/webhook-receiver';
import { afterEach, describe, expect, it } from 'vitest';
import { addSubscription } from '../../src/webhooks/subscriptions.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

describe('webhook metrics', () => {
  it('count attempts by outcome and retries, and show each queue: backlog, oldest age, circuit', {
    timeout: 60_000,
  }, async () => {
    // The first attempt fails (retried ~10 ms later), then every one succeeds; the other receiver always fails.
    const good = await startWebhookReceiver((_request, index) => ({ status: index === 0 ? 503 : 204 }));
    const bad = await startWebhookReceiver(() => ({ status: 500 }));
    open.push(good, bad);
    const server = await startTestServer({
      metrics: true,
      env: {
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_RETRY_FIRST_MS: '10',
        WEBHOOK_POLL_MS: '50',
        WEBHOOK_CIRCUIT_FAILURES: '2',
        WEBHOOK_CIRCUIT_OPEN_MS: '600000',
        RATE_LIMIT_MAX: '0',
      },
    });
    open.push(server);
    const scrape = () => server.metrics!.registry.metrics();
    const alice = createPlantStoreClient({ baseUrl: server.url, token: await server.token('alice') });
    const bob = createPlantStoreClient({ baseUrl: server.url, token: await server.token('bob') });
    const { id: goodId } = await addSubscription(server.store.webhooks, {
      url: good.url,
      subject: 'alice',
      allowPrivate: true,
    });
    const { id: badId } = await addSubscription(server.store.webhooks, {
      url: bad.url,
      subject: 'bob',
      allowPrivate: true,
    });
    for (let id = 1; id <= 3; id++) await alice.plants.create({ id, name: `A${id}` });
    const beforeBob = Date.now();
    for (let id = 1; id <= 3; id++) await bob.plants.create({ id, name: `B${id}` });

    await waitFor('three delivered', async () => {
      const text = await scrape();
      return (
        sampleValue(text, 'plant_store_webhook_attempts_total', { subscription: goodId, outcome: 'delivered' }) === 3
      );
    });
    await waitFor('the failing circuit to open', async () => {
      const text = await scrape();
      return sampleValue(text, 'plant_store_webhook_circuit_open', { subscription: badId }) === 1;
    });
    // The deliveries are settled in batches after they are counted: wait until the healthy queue shows empty.
    await waitFor('the healthy queue to be settled', async () => {
      const text = await scrape();
      return sampleValue(text, 'plant_store_webhook_backlog', { subscription: goodId }) === 0;
    });
    // A settled batch is visible in the database once committed, and its deliveries leave the in-flight count once
    // it is also synced to disk: wait for that too.
    await waitFor(
      'no delivery in flight',
      async () => sampleValue(await scrape(), 'plant_store_webhook_in_flight') === 0,
    );
    const text = await scrape();
    expect(sampleValue(text, 'plant_store_webhook_attempts_total', { subscription: goodId, outcome: 'retry' })).toBe(1);
    expect(sampleValue(text, 'plant_store_webhook_retries_total', { subscription: goodId })).toBe(1);
    expect(sampleValue(text, 'plant_store_webhook_backlog', { subscription: goodId })).toBe(0);
    expect(sampleValue(text, 'plant_store_webhook_oldest_pending_age_seconds', { subscription: goodId })).toBe(0);
    expect(sampleValue(text, 'plant_store_webhook_circuit_open', { subscription: goodId })).toBe(0);
    // The failing one: its three events wait behind the open circuit, the oldest since Bob's first create (no older:
    // the age is read from the database at a scrape after that create, so it lies between zero and the time since).
    expect(sampleValue(text, 'plant_store_webhook_backlog', { subscription: badId })).toBe(3);
    const oldest = sampleValue(text, 'plant_store_webhook_oldest_pending_age_seconds', { subscription: badId });
    expect(oldest).toBeGreaterThan(0);
    expect(oldest).toBeLessThanOrEqual((Date.now() - beforeBob) / 1000);
    expect(
      sampleValue(text, 'plant_store_webhook_attempts_total', { subscription: badId, outcome: 'retry' }),
    ).toBeGreaterThanOrEqual(2);
    expect(sampleValue(text, 'plant_store_webhook_in_flight')).toBe(0);
    // No label but the subscription id and the outcome: nothing per event, URL or principal.
    const labels = new Set(
      parseSamples(text)
        .filter((sample) => sample.name.startsWith('plant_store_webhook_'))
        .flatMap((sample) => Object.keys(sample.labels)),
    );
    expect([...labels].sort()).toEqual(['outcome', 'subscription']);
    // A removed subscription's queue series go with it.
    await server.store.webhooks.removeSubscription(badId);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(sampleValue(await scrape(), 'plant_store_webhook_backlog', { subscription: badId })).toBeUndefined();
  });
});
