// With REDIS_URL set and Redis unreachable, requests are not stalled (no offline queue, a short
// command timeout), each process limits on its own meanwhile, the change is logged once, and /readyz says degraded.
import { createServer, type Server } from 'node:net';
import { createTestDatabase, type TestDatabase } from '@plant-store/test-kit';
import { type ServerProcess, startServerProcess } from '@plant-store/test-kit/server-process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '../../src/auth/tokens.js';
import { openStore } from '../../src/store/open-store.js';

let database: TestDatabase;
let server: ServerProcess | undefined;
let token: string;
// A "Redis" that accepts connections and never answers: the worst kind of outage (no quick refusal).
let blackHole: Server;

beforeAll(async () => {
  blackHole = createServer(() => {});
  await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
  const { port } = blackHole.address() as { port: number };
  database = createTestDatabase('sqlite');
  const store = await openStore(database.url);
  await store.migrate();
  token = (await issueToken(store.tokens, { subject: 'alice' })).token;
  await store.close();
  server = await startServerProcess({
    DATABASE_URL: database.url,
    REDIS_URL: `redis://127.0.0.1:${port}`,
    RATE_LIMIT_MAX: '5',
    REQUEST_TIMEOUT_MS: '3000',
  });
}, 60_000);

afterAll(async () => {
  server?.child.kill('SIGKILL');
  await server?.exited;
  blackHole?.close();
  await database?.drop();
});

describe('rate limits while Redis is unreachable', () => {
  it('answers at once, limits per process, logs the change once and reports degraded readiness', async () => {
    const statuses: number[] = [];
    let slowest = 0;
    for (let i = 0; i < 8; i++) {
      const started = performance.now();
      const response = await fetch(`${server!.url}/plants`, { headers: { authorization: `Bearer ${token}` } });
      slowest = Math.max(slowest, performance.now() - started);
      statuses.push(response.status);
      await response.arrayBuffer();
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    // Not the 0.1-4 s per call of a queueing client; generous for a loaded two-core machine.
    expect(slowest).toBeLessThan(1_000);
    const ready = await fetch(`${server!.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'degraded', database: 'sqlite' });
    const lines = server!
      .output()
      .split('\n')
      .filter((line) => line.includes('redis for rate limits'));
    expect(lines).toHaveLength(1);
  });
});
