// Runs the service: opens and migrates the store, listens, and shuts down gracefully on SIGTERM and SIGINT
// (stop accepting, finish in-flight requests, close the database).
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { openStore } from './store/open-store.js';

export async function runServer(config: Config): Promise<void> {
  const store = await openStore(config.databaseUrl, {
    poolSize: config.databasePoolSize,
    groupCommit: config.sqliteGroupCommit,
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
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);

  await app.listen({ host: config.host, port: config.port });
}
