// Runs the delivery worker with the server: it starts once the service listens (inject-only test apps never start
// one) and stops when the app closes, before the store does.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { Store } from '../store/store.js';
import { type DeliveryWorker, startDeliveryWorker } from './delivery-worker.js';

export function registerWebhookDelivery(app: FastifyInstance, config: Config, store: Store): void {
  let worker: DeliveryWorker | undefined;
  // Registered as a plugin (not awaited) so it loads at ready, after server.ts adds the hook that closes the store:
  // onClose hooks run last-added first, so this one stops the worker while the store is still open. It runs after
  // the listener has closed and in-flight requests have finished; deliveries in flight get up to one attempt's
  // deadline (within the shutdown grace) and the rest are abandoned, due again at once for the next process.
  void app.register(async (scope) => {
    scope.addHook('onListen', async () => {
      worker ??= startDeliveryWorker(store.webhooks, config.webhooks, app.log.child({ component: 'webhooks' }));
    });
    scope.addHook('onClose', async () => {
      await worker?.stop(Math.min(config.webhooks.timeoutMs, config.shutdownTimeoutMs / 2));
    });
  });
}
