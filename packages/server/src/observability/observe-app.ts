// What buildApp adds when metrics or tracing are on: the store decorated, the HTTP metrics hooks, the request span,
// and log lines that carry the trace id beside the request id. Nothing at all when both are off.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AccessLog } from '../http/logger.js';
import type { Store } from '../store/store.js';
import type { WorkerObserver } from '../webhooks/delivery-worker.js';
import { registerHttpMetrics } from './http-metrics.js';
import { instrumentStore } from './instrumented-store.js';
import type { Metrics } from './metrics.js';
import type { Tracing } from './tracing.js';

export interface Observability {
  metrics?: Metrics | undefined;
  tracing?: Tracing | undefined;
}

/** The store the app should use: measured and traced when either is on, else the store itself. */
export function observedStore(store: Store, { metrics, tracing }: Observability): Store {
  return metrics || tracing ? instrumentStore(store, metrics, tracing?.span) : store;
}

/**
 * What the webhook worker reports to, with metrics on; undefined without. Imported only then: webhook-metrics loads
 * prom-client's series for the worker, which a service without metrics never needs.
 */
export function webhookObserver(store: Store, { metrics }: Observability): (() => Promise<WorkerObserver>) | undefined {
  if (!metrics) return undefined;
  return async () => (await import('./webhook-metrics.js')).watchWebhooks(metrics.registry, store.webhooks);
}

/** Registers the hooks; call it first, before any hook that may answer early, so every request is seen. */
export async function registerObservability(
  app: FastifyInstance,
  store: Store,
  { metrics, tracing }: Observability,
  accessLog: boolean,
): Promise<void> {
  if (tracing) {
    await app.register(tracing.plugin);
    registerTraceLogging(app, (request) => tracing.ids(request), accessLog);
  }
  if (metrics) {
    registerHttpMetrics(app, metrics);
    metrics.watchStore(store);
  }
}

/**
 * Fastify writes "incoming request" (at debug) before any hook has run, so before the span exists: with tracing on,
 * the app's log controller leaves that line to the hook below, which writes it from a logger bound to the trace.
 * Every later line of the request ("request completed", errors) goes through that logger too.
 */
export class TracedRequestLog extends AccessLog {
  override incomingRequest(): void {}
}

function registerTraceLogging(
  app: FastifyInstance,
  ids: (request: FastifyRequest) => Record<string, string> | undefined,
  accessLog: boolean,
): void {
  app.addHook('onRequest', (request, reply, done) => {
    const bindings = ids(request);
    if (bindings) {
      request.log = request.log.child(bindings);
      reply.log = request.log;
    }
    if (accessLog) request.log.debug({ req: request }, 'incoming request');
    done();
  });
}
