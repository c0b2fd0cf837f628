// Runs the delivery worker with the server: it starts once the service listens (inject-only test apps never start
// one) and stops when the app starts closing, while the store is still open.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { Metrics } from '../observability/metrics.js';
import type { Store } from '../store/store.js';
import { type DeliveryWorker, startDeliveryWorker } from './delivery-worker.js';

export function registerWebhookDelivery(
  app: FastifyInstance,
  config: Config,
  store: Store,
  metrics?: Metrics | undefined,
): void {
  let worker: DeliveryWorker | undefined;
  app.addHook('onListen', async () => {
    if (worker) return;
    // Imported only with metrics on: webhook-metrics loads prom-client, which a service without metrics never needs.
    const observer = metrics
      ? (await import('../observability/webhook-metrics.js')).watchWebhooks(metrics.registry, store.webhooks)
      : undefined;
    worker = startDeliveryWorker(store.webhooks, config.webhooks, app.log.child({ component: 'webhooks' }), {
      ...(observer ? { observer } : {}),
    });
  });
  // preClose runs before the listener closes and before any onClose hook (the store's included). Deliveries in flight
  // get up to a quarter of the shutdown grace (and no more than one attempt's deadline) to finish; the rest are
  // abandoned, due again at once for another instance or the next start. Events that requests still commit while
  // draining stay in the outbox for them too.
  app.addHook('preClose', async () => {
    await worker?.stop(Math.min(config.webhooks.timeoutMs, config.shutdownTimeoutMs / 4));
  });
}
