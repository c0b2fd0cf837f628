// Runs the service: opens and migrates the store, listens, and shuts down gracefully on SIGTERM and SIGINT
// (stop accepting, finish in-flight requests, close the database).
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { openStore } from './store/open-store.js';

/**
 * Each wait on the database (a pooled connection, a statement) gets at most 20% of the request timeout: a request
 * makes two calls (the token, then the operation), each at most two waits, so a locked table or an exhausted pool
 * answers 503 within REQUEST_TIMEOUT_MS with room to spare.
 */
export function databaseTimeoutMs(requestTimeoutMs: number): number {
  return Math.max(50, Math.floor(requestTimeoutMs * 0.2));
}

export async function runServer(config: Config): Promise<void> {
  const store = await openStore(config.databaseUrl, {
    poolSize: config.databasePoolSize,
    groupCommit: config.sqliteGroupCommit,
    pageCacheBytes: config.pageCacheBytes,
    timeoutMs: databaseTimeoutMs(config.requestTimeoutMs),
  });
  await store.migrate();
  const app = await buildApp({ config, store });
  app.addHook('onClose', async () => store.close());

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    const force = setTimeout(() => {
      app.log.error('shutdown timed out; exiting with requests still open');
      process.exit(1);
    }, config.shutdownTimeoutMs);
    force.unref();
    // Node closes "idle" connections as soon as the listener closes, and a connection whose request has not been
    // read yet counts as idle: its client would see a reset. Give such connections a moment to deliver their
    // request (answered with Connection: close), then close whatever is still idle.
    const closeIdle = app.server.closeIdleConnections.bind(app.server);
    app.server.closeIdleConnections = () => {};
    setTimeout(() => {
      closeIdle();
      setInterval(closeIdle, 100).unref();
    }, 500).unref();
    // One more turn of the event loop first accepts connections already queued by the kernel, which closing the
    // listener would otherwise reset.
    setImmediate(() =>
      app.close().then(
        () => process.exit(0),
        (error: unknown) => {
          app.log.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      ),
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);

  await app.listen({ host: config.host, port: config.port });
}
