// Test support: the real app on a real database (SQLite file in a temp dir, or a PostgreSQL schema of its own,
// see test-database.ts), for inject tests or over a loopback socket.
import type { AddressInfo } from 'node:net';
import type { Scope } from '@plant-store/contract';
import {
  buildApp,
  type Config,
  createMetrics,
  issueToken,
  loadConfig,
  type Metrics,
  openStore,
  type Store,
} from '@plant-store/server';
import type { FastifyInstance } from 'fastify';
import { TEST_DATABASE } from './test-database.js';
import { openTestStore } from './test-store.js';

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
  const env = options.env ?? {};
  const metrics = options.metrics ? createMetrics() : undefined;
  // A DATABASE_URL in env is a database the test owns (two apps on one, say); otherwise the app gets a fresh one.
  const storeOptions = (config: Config) => ({
    poolSize: config.databasePoolSize,
    ...(metrics ? { onGroupCommit: metrics.groupCommitBatch } : {}),
  });
  let store: Store;
  let closeStore: () => Promise<void>;
  let config: Config;
  if (env.DATABASE_URL !== undefined) {
    config = testConfig(env);
    store = await openStore(config.databaseUrl, storeOptions(config));
    await store.migrate();
    closeStore = () => store.close();
  } else {
    const opened = await openTestStore(TEST_DATABASE, { store: storeOptions(testConfig(env)) });
    config = testConfig({ ...env, DATABASE_URL: opened.url });
    store = opened.store;
    closeStore = () => opened.close();
  }
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
      try {
        await app.close();
      } finally {
        await closeStore();
      }
    },
  };
}

function testConfig(env: Record<string, string>): Config {
  return loadConfig({
    LOG_LEVEL: 'silent',
    PORT: '0',
    // Inject tests share the event loop with the test's own work: its lag is not the service's overload, so load
    // shedding is off unless a test turns it on (packages/server/test/http/load-shedding.system.test.ts does).
    MAX_EVENT_LOOP_DELAY_MS: '0',
    ...env,
  });
}

export async function startTestServer(options: TestAppOptions = {}): Promise<TestServer> {
  const testApp = await createTestApp(options);
  await testApp.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = testApp.app.server.address() as AddressInfo;
  return { ...testApp, url: `http://127.0.0.1:${port}` };
}
