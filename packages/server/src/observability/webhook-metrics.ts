// Webhook delivery metrics: attempts by outcome and retries (counted by this process's worker), its deliveries in
// flight, and each subscription's queue read from the database at scrape time (backlog, oldest pending delivery's
// age, leases, open circuit). Labelled by subscription id only: subscriptions are few and made by the operator, and
// queue series of a removed subscription go with it; no label ever carries an event, a URL or a principal.
import { Counter, Gauge, type Registry } from 'prom-client';
import type { DeliveryOutcome, SubscriptionQueue, WebhookRepository } from '../store/store.js';
import type { WorkerObserver } from '../webhooks/delivery-worker.js';

/** How long one reading of the queues serves the scrape's gauges (one query per scrape, not one per gauge). */
const READING_MS = 1_000;

const OUTCOMES: readonly DeliveryOutcome['kind'][] = ['delivered', 'retry', 'failed', 'released'];

export function watchWebhooks(registry: Registry, webhooks: WebhookRepository): WorkerObserver {
  const registers = [registry];
  const attempts = new Counter({
    name: 'plant_store_webhook_attempts_total',
    help: 'Webhook delivery attempts by outcome: delivered, retry (failed, tried again later), failed (given up), released (abandoned at shutdown)',
    labelNames: ['subscription', 'outcome'],
    registers,
    // Every subscription's series are there from its first scrape, at 0: a dashboard shows 0, not "no data".
    async collect() {
      for (const queue of (await queues()).queues) {
        for (const outcome of OUTCOMES) this.inc({ subscription: queue.subscriptionId, outcome }, 0);
      }
    },
  });
  const retries = new Counter({
    name: 'plant_store_webhook_retries_total',
    help: 'Webhook delivery attempts that were retries (the delivery had been attempted before)',
    labelNames: ['subscription'],
    registers,
    async collect() {
      for (const queue of (await queues()).queues) this.inc({ subscription: queue.subscriptionId }, 0);
    },
  });
  const inFlight = new Gauge({
    name: 'plant_store_webhook_in_flight',
    help: 'Webhook attempts in flight in this process (WEBHOOK_CONCURRENCY bounds it)',
    registers,
  });

  let reading: { at: number; queues: Promise<SubscriptionQueue[]> } | undefined;
  let last: SubscriptionQueue[] = [];
  const queues = async (): Promise<{ now: number; queues: SubscriptionQueue[] }> => {
    const now = Date.now();
    if (!reading || now - reading.at > READING_MS) reading = { at: now, queues: webhooks.queues(now) };
    try {
      last = await reading.queues;
    } catch {
      // The database is unreachable: the last reading stands (the store's error metrics say why).
    }
    return { now: reading.at, queues: last };
  };
  const queueGauge = (name: string, help: string, value: (queue: SubscriptionQueue, now: number) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['subscription'],
      registers,
      async collect() {
        const { now, queues: found } = await queues();
        this.reset();
        for (const queue of found) this.set({ subscription: queue.subscriptionId }, value(queue, now));
      },
    });
  queueGauge(
    'plant_store_webhook_backlog',
    'Pending webhook deliveries per subscription (due, waiting for a retry, or in flight); every instance reports the same database',
    (queue) => queue.pending,
  );
  queueGauge(
    'plant_store_webhook_oldest_pending_age_seconds',
    'Age of the oldest pending webhook delivery per subscription (0 when none is pending)',
    (queue, now) => (queue.oldestCreatedAt === null ? 0 : Math.max(0, now - queue.oldestCreatedAt) / 1000),
  );
  queueGauge(
    'plant_store_webhook_leased',
    'Webhook deliveries of the subscription leased by a worker of any instance now (WEBHOOK_PER_SUBSCRIPTION bounds it)',
    (queue) => queue.leased,
  );
  queueGauge(
    'plant_store_webhook_circuit_open',
    "1 while the subscription's circuit breaker is open (no attempts), else 0",
    (queue, now) => (queue.circuitOpenUntil !== null && queue.circuitOpenUntil > now ? 1 : 0),
  );

  return {
    attempted(subscription, outcome, retry) {
      attempts.inc({ subscription, outcome });
      if (retry) retries.inc({ subscription });
    },
    inFlight: (count) => inFlight.set(count),
  };
}
