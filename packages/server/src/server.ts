// Runs the service: opens and migrates the store, listens, and shuts down gracefully on SIGTERM and SIGINT (stop
// accepting, finish in-flight requests, close the database and Redis). The shutdown deadline is close-with-grace's;
// what it does not know about Node's HTTP server is in http/idle-connection-guard.ts.
import { existsSync } from 'node:fs';
import closeWithGrace from 'close-with-grace';
import { type AppOptions, buildApp } from './app.js';
import { type Config, databaseTimeoutMs } from './config.js';
import type { RunLog } from './failure-run.js';
import { guardIdleConnections } from './http/idle-connection-guard.js';
import { flushLog } from './http/logger.js';
import { createRateLimitRedis } from './http/rate-limit.js';
import { serveObservability, startObservability } from './observability/start-observability.js';
import { describeConfiguredDatabase } from './store/describe-database.js';
import { openStore, sqliteFileOf } from './store/open-store.js';

// close-with-grace listens to more events than the service's contract with its supervisor names (docs/deployment.md:
// SIGTERM and SIGINT); the rest keep Node's defaults.
const OTHER_EVENTS = [
  'SIGHUP',
  'SIGQUIT',
  'SIGILL',
  'SIGTRAP',
  'SIGABRT',
  'SIGBUS',
  'SIGFPE',
  'SIGSEGV',
  'SIGUSR2',
  'uncaughtException',
  'unhandledRejection',
  'beforeExit',
] as const;

/**
 * A terminal's Ctrl-C signals the whole process group, and `pnpm start` passes the SIGINT it got on as well: a signal
 * within this long of the first is that same one, not a second Ctrl-C.
 */
const REPEATED_SIGNAL_MS = 500;

/** buildApp's options that runServer does not make itself: a caller's own id maker, checks, set-up, ... */
export type ServerOptions = Omit<AppOptions, 'config' | 'store' | 'redis' | 'observability'>;

export async function runServer(config: Config, options: ServerOptions = {}): Promise<void> {
  const observability = await startObservability(config);
  const file = sqliteFileOf(config.databaseUrl);
  const created = file !== undefined && !existsSync(file);
  // The store is opened before the app (and its logger) exists; what it says while running goes to the app's log.
  let appLog: RunLog | undefined;
  const store = await openStore(config.databaseUrl, {
    log: {
      warn: (details, message) => appLog?.warn(details, message),
      info: (details, message) => appLog?.info(details, message),
    },
    ...(observability.metrics ? { onGroupCommit: observability.metrics.groupCommitBatch } : {}),
    poolSize: config.databasePoolSize,
    directUrl: config.databaseDirectUrl,
    groupCommit: config.sqliteGroupCommit,
    pageCacheBytes: config.pageCacheBytes,
    timeoutMs: databaseTimeoutMs(config.requestTimeoutMs),
  });
  // With REDIS_URL the rate-limit counters are shared by every instance; without it each process counts on its own.
  const redis = config.rateLimit?.max && config.redisUrl ? await createRateLimitRedis(config.redisUrl) : undefined;
  const app = await store
    .migrate()
    .then(() => buildApp({ ...options, config, store, redis, observability }))
    .catch(async (error: unknown) => {
      // Start-up stops here: close what is open, so the process can exit.
      redis?.disconnect();
      await store.close().catch(() => {});
      throw error;
    });
  appLog = app.log;
  const database = describeConfiguredDatabase(config);
  app.log.info({ database }, `serving ${database}`);
  if (created) app.log.warn({ database: file }, 'created a new, empty SQLite database (none was there before)');
  if (store.kind === 'memory') {
    app.log.warn(
      { database: config.databaseUrl },
      'DATABASE_URL=memory: NOTHING IS KEPT: every plant, token and webhook is lost when this process ends',
    );
  }
  app.addHook('onClose', async () => {
    await redis?.quit().catch(() => redis.disconnect());
    await store.close();
  });
  // A metrics address that cannot be bound stops start-up, like PORT would, with the store closed again.
  await serveObservability(app, config, observability).catch(async (error: unknown) => {
    await app.close();
    throw error;
  });

  const shutdown = closeWithGrace(
    {
      delay: config.shutdownTimeoutMs,
      // SIGTERM and SIGINT are handled below; an uncaught error keeps Node's default (log and exit 1).
      skip: [...OTHER_EVENTS, 'SIGINT', 'SIGTERM'],
      logger: { error: (message: unknown) => app.log.error(message) },
      onTimeout: () => app.log.error('shutdown timed out; exiting with requests still open'),
    },
    async () => {
      guardIdleConnections(app.server);
      // One more turn of the event loop first accepts connections already queued by the kernel, which closing the
      // listener would otherwise reset.
      await new Promise((resolve) => setImmediate(resolve));
      await app.close();
      // The log's last lines, but never waiting long on a reader that stalled (the exit says what was lost).
      await flushLog();
    },
  );
  let stoppingSince: number | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stoppingSince === undefined) {
      stoppingSince = Date.now();
      app.log.info({ signal }, 'shutting down: finishing in-flight requests');
      void shutdown.close();
    } else if (Date.now() - stoppingSince >= REPEATED_SIGNAL_MS) {
      // A second signal while draining (a second Ctrl-C) exits at once, with code 1.
      app.log.warn({ signal }, 'second signal while shutting down: exiting now');
      process.exit(1);
    }
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  // A port that cannot be bound stops start-up too: close the store, Redis and the metrics listener, so nothing keeps
  // the process alive and a supervisor sees it exit.
  await app.listen({ host: config.host, port: config.port }).catch(async (error: unknown) => {
    await app.close();
    throw error;
  });
}
