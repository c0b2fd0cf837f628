// Starting metrics and tracing for a serving process (server.ts): both from the config, the OpenTelemetry SDK
// imported only when tracing is on, and the metrics listener opened (or, in a `serve --workers` worker, the
// registry handed to the primary, which listens for all). prom-client too is imported only when metrics are on.
import cluster from 'node:cluster';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { Observability } from './observe-app.js';

/** How long shutting down waits for the last spans to be exported. */
const TRACE_FLUSH_MS = 3_000;

export async function startObservability(config: Config): Promise<Observability> {
  const tracing = config.tracing ? (await import('./tracing.js')).startTracing() : undefined;
  const metrics = config.metrics ? (await import('./metrics.js')).createMetrics() : undefined;
  return { metrics, tracing };
}

/** Opens the metrics listener (stopping start-up when its address cannot be bound) and closes both with the app. */
export async function serveObservability(
  app: FastifyInstance,
  config: Config,
  { metrics, tracing }: Observability,
): Promise<void> {
  if (tracing) {
    app.addHook('onClose', async () => {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, TRACE_FLUSH_MS);
      });
      await Promise.race([tracing.shutdown().catch(() => {}), deadline]);
      clearTimeout(timer);
    });
  }
  if (!metrics || !config.metrics) return;
  const { scrapeRegistry, shareWithPrimary, startMetricsServer } = await import('./metrics-server.js');
  if (cluster.isWorker) {
    shareWithPrimary(metrics.registry);
    return;
  }
  const listener = await startMetricsServer(config.metrics, scrapeRegistry(metrics.registry), (error) =>
    app.log.error({ err: error }, 'metrics scrape failed'),
  );
  app.log.info({ url: listener.url }, `Metrics listening at ${listener.url}/metrics`);
  app.addHook('onClose', async () => {
    await new Promise((resolve) => listener.server.close(resolve));
  });
}

/** In the `serve --workers` primary: one listener answering with every worker's figures summed. */
export async function serveClusterMetrics(config: Config): Promise<() => void> {
  if (!config.metrics) return () => {};
  const { scrapeWorkers, startMetricsServer } = await import('./metrics-server.js');
  const log = (level: number, msg: string, extra: object = {}) =>
    process.stdout.write(`${JSON.stringify({ level, time: Date.now(), pid: process.pid, ...extra, msg })}\n`);
  const listener = await startMetricsServer(config.metrics, scrapeWorkers(), (error) =>
    log(50, 'metrics scrape failed', { err: { message: (error as Error).message } }),
  );
  log(30, `Metrics listening at ${listener.url}/metrics`, { url: listener.url });
  return () => listener.server.close();
}
