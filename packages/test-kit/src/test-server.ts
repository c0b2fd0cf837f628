// Test support: the real app on a real database (SQLite file in a temp dir, or a PostgreSQL schema of its own,
// see test-database.ts), for inject tests or over a loopback socket.
import type { AddressInfo } from 'node:net';
import type { Scope } from '@plant-store/contract';
import {
  buildApp,
  createMetrics,
  issueToken,
  loadConfig,
  type Metrics,
  openStore,
  type Store,
} from '@plant-store/server';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase } from './test-database.js';

export interface TestApp {
  app: FastifyInstance;
  store: Store;
  /** The app's Prometheus registry and metrics, when created with `metrics: true`. */
  metrics: Metrics | undefined;
  /** Issues a real token for `subject` (both scopes unless given). */
  token(subject: string, scopes?: Scope[], expiresInMs?: number): Promise<string>;
  close(): Promise<void>;
}

export interface TestServer extends TestApp {
  /** http://127.0.0.1:PORT */
  url: string;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  /** Measure the app into a Prometheus registry of its own (TestApp.metrics), as `serve` does with metrics on. */
  metrics?: boolean;
}

export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const database = createTestDatabase();
  const config = loadConfig({
    DATABASE_URL: database.url,
    LOG_LEVEL: 'silent',
    PORT: '0',
    // Inject tests share the event loop with the test's own work: its lag is not the service's overload, so load
    // shedding is off unless a test turns it on (packages/server/test/http/system/load-shedding.test.ts does).
    MAX_EVENT_LOOP_DELAY_MS: '0',
    ...options.env,
  });
  const metrics = options.metrics ? createMetrics() : undefined;
  const store = await openStore(config.databaseUrl, {
    poolSize: config.databasePoolSize,
    ...(metrics ? { onGroupCommit: metrics.groupCommitBatch } : {}),
  });
  await store.migrate();
  const app = await buildApp({ config, store, observability: { metrics } });
  return {
    app,
    store,
    metrics,
    async token(subject, scopes, expiresInMs) {
      const issued = await issueToken(store.tokens, {
        subject,
        ...(scopes ? { scopes } : {}),
        ...(expiresInMs === undefined ? {} : { expiresInMs }),
      });
      return issued.token;
    },
    async close() {
      await app.close();
      await store.close();
      await database.drop();
    },
  };
}

export async function startTestServer(options: TestAppOptions = {}): Promise<TestServer> {
  const testApp = await createTestApp(options);
  await testApp.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = testApp.app.server.address() as AddressInfo;
  return { ...testApp, url: `http://127.0.0.1:${port}` };
}
