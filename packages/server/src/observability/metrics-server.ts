// The metrics listener: GET /metrics on its own address (METRICS_HOST:METRICS_PORT), away from the API's port and
// its auth, for Prometheus to scrape. With `serve --workers` the primary runs it and gathers every worker's figures.
import cluster from 'node:cluster';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AggregatorRegistry, type Registry } from 'prom-client';
import { http } from '../http/node-http.js';

/** What a scrape answers: the text and its content type. */
export type Scrape = () => Promise<{ text: string; contentType: string }>;

/** One process's registry. */
export function scrapeRegistry(registry: Registry): Scrape {
  return async () => ({ text: await registry.metrics(), contentType: registry.contentType });
}

/**
 * In the cluster primary: every worker's registry, summed (prom-client asks each over IPC, 5 s deadline). Workers
 * answer once they have called `shareWithPrimary`.
 */
export function scrapeWorkers(): Scrape {
  const aggregator = new AggregatorRegistry();
  return async () => ({ text: await aggregator.clusterMetrics(), contentType: aggregator.contentType });
}

/** In a cluster worker: answers the primary's requests with this registry. */
export function shareWithPrimary(registry: Registry): void {
  if (!cluster.isWorker) return;
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([registry]);
}

/**
 * Why the metrics address cannot be bound, naming the settings: a second instance on one host meets the first one's
 * default port (9464) before anything else.
 */
function listenError(error: NodeJS.ErrnoException, address: { host: string; port: number }): Error {
  const where = `${address.host}:${address.port}`;
  const what =
    error.code === 'EADDRINUSE'
      ? `the metrics address ${where} is already in use (EADDRINUSE; another plant-store on this host?)`
      : `the metrics address ${where} cannot be bound (${error.code ?? error.message})`;
  return new Error(
    `${what}: set METRICS_PORT to a free port (METRICS_PORT=0 picks one), METRICS_HOST to another address, ` +
      'or METRICS_PORT=off to turn the metrics listener off',
    { cause: error },
  );
}

/** Listens on host:port and resolves with the server and its URL; rejects when the address cannot be bound. */
export async function startMetricsServer(
  address: { host: string; port: number },
  scrape: Scrape,
  onError: (error: unknown) => void,
): Promise<{ server: Server; url: string }> {
  const server = http.createServer((request, response) => {
    const path = request.url?.split('?')[0];
    if (path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found: metrics are at /metrics\n');
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('use GET\n');
      return;
    }
    scrape().then(
      ({ text, contentType }) => {
        response.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
        response.end(request.method === 'HEAD' ? undefined : text);
      },
      (error: unknown) => {
        onError(error);
        response.writeHead(503, { 'content-type': 'text/plain' }).end('metrics are unavailable right now\n');
      },
    );
  });
  server.requestTimeout = 10_000;
  server.headersTimeout = 5_000;
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    const refuse = (error: NodeJS.ErrnoException) => reject(listenError(error, address));
    server.once('error', refuse);
    server.listen(address.port, address.host, () => {
      server.off('error', refuse);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = address.host.includes(':') ? `[${address.host}]` : address.host;
  return { server, url: `http://${host}:${port}` };
}
