// Runs the delivery worker with the server: it starts once the service listens (inject-only test apps never start
// one) and stops when the app starts closing, while the store is still open.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { Store } from '../store/store.js';
import { type DeliveryWorker, startDeliveryWorker, type WorkerObserver } from './delivery-worker.js';

/**
 * Registers the worker; `observe`, when given (metrics on), makes what the worker reports to as it starts, so what it
 * loads is loaded only by a server that delivers.
 */
export function registerWebhookDelivery(
  app: FastifyInstance,
  config: Config,
  store: Store,
  observe?: () => Promise<WorkerObserver>,
): void {
  let worker: DeliveryWorker | undefined;
  app.addHook('onListen', async () => {
    if (worker) return;
    const observer = await observe?.();
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
