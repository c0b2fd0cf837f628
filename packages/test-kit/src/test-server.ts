// Test support: the real app on a real database (SQLite file in a temp dir, or a PostgreSQL schema of its own,
// see test-database.ts), for inject tests or over a loopback socket.
import type { AddressInfo } from 'node:net';
import type { Scope } from '@plant-store/contract';
import { buildApp, issueToken, loadConfig, openStore, type Store } from '@plant-store/server';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase } from './test-database.js';

export interface TestApp {
  app: FastifyInstance;
  store: Store;
  /** Issues a real token for `subject` (both scopes unless given). */
  token(subject: string, scopes?: Scope[], expiresInMs?: number): Promise<string>;
  close(): Promise<void>;
}

export interface TestServer extends TestApp {
  /** http://127.0.0.1:PORT */
  url: string;
}

export async function createTestApp(options: { env?: Record<string, string> } = {}): Promise<TestApp> {
  const database = createTestDatabase();
  const config = loadConfig({
    DATABASE_URL: database.url,
    LOG_LEVEL: 'silent',
    PORT: '0',
    // Inject tests share the event loop with the test's own work: its lag is not the service's overload, so load
    // shedding is off unless a test turns it on (packages/server/test/hardening/system/load-shedding.test.ts does).
    MAX_EVENT_LOOP_DELAY_MS: '0',
    ...options.env,
  });
  const store = await openStore(config.databaseUrl, { poolSize: config.databasePoolSize });
  await store.migrate();
  const app = await buildApp({ config, store });
  return {
    app,
    store,
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

export async function startTestServer(options: { env?: Record<string, string> } = {}): Promise<TestServer> {
  const testApp = await createTestApp(options);
  await testApp.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = testApp.app.server.address() as AddressInfo;
  return { ...testApp, url: `http://127.0.0.1:${port}` };
}
