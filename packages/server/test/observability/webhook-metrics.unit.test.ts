// Webhook counters per subscription are there, at 0, from the first scrape after the subscription exists: a dashboard
// of attempts by outcome shows 0 rather than "no data" until the first delivery.
import { parseSamples } from '@plant-store/test-kit/prometheus-samples';
import { Registry } from 'prom-client';
import { expect, it } from 'vitest';
import { watchWebhooks } from '../../src/observability/webhook-metrics.js';
import { openMemoryStore } from '../../src/store/memory/memory-store.js';

it('shows every outcome and the retries of a subscription at 0 before any attempt', async () => {
  const store = openMemoryStore();
  await store.webhooks.addSubscription({ id: 'sub-1', url: 'https://example.test/hook', subject: null, secret: 's' });
  const registry = new Registry();
  watchWebhooks(registry, store.webhooks);
  const samples = parseSamples(await registry.metrics());
  const counted = (name: string) =>
    samples
      .filter((sample) => sample.name === name)
      .map(({ labels, value }) => ({ ...labels, value }))
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  expect(counted('plant_store_webhook_attempts_total')).toEqual(
    ['delivered', 'failed', 'released', 'retry'].map((outcome) => ({ subscription: 'sub-1', outcome, value: 0 })),
  );
  expect(counted('plant_store_webhook_retries_total')).toEqual([{ subscription: 'sub-1', value: 0 }]);
  await store.close();
});
