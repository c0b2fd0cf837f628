// `serve --workers N` stops within a deadline: a worker that does not end after SIGTERM (here one stopped with
// SIGSTOP, as a blocked event loop would be) is killed once its own shutdown deadline (SHUTDOWN_TIMEOUT_MS) and the
// primary's margin have passed, and the primary exits non-zero naming it, so a supervisor never waits forever.
import { createTestDatabase, type TestDatabase, waitFor } from '@plant-store/test-kit';
import { type ServerProcess, startServerProcess, stopAll } from '@plant-store/test-kit/server-process';
import { afterAll, describe, expect, it } from 'vitest';

let database: TestDatabase | undefined;
let server: ServerProcess | undefined;
let stoppedWorker = 0;

afterAll(async () => {
  if (stoppedWorker) {
    try {
      process.kill(stoppedWorker, 'SIGKILL');
    } catch {
      // already gone, as it should be
    }
  }
  if (server) await stopAll([server]);
  await database?.drop();
});

describe('serve --workers 2 stopping', () => {
  it('kills a worker that does not stop by the deadline and exits 1 naming it', async () => {
    database = createTestDatabase('sqlite');
    server = await startServerProcess({ DATABASE_URL: database.url, SHUTDOWN_TIMEOUT_MS: '500' }, ['--workers', '2']);
    const workers = () => [...server!.output().matchAll(/"pid":(\d+)[^\n]*Server listening/g)].map((m) => Number(m[1]));
    await waitFor('both workers to listen', () => new Set(workers()).size >= 2);
    stoppedWorker = workers()[0]!;
    process.kill(stoppedWorker, 'SIGSTOP');
    server.child.kill('SIGTERM');
    const code = await server.exited;
    expect(code).toBe(1);
    expect(server.errors()).toContain(`worker ${stoppedWorker} did not stop within 2.5 s; killing it`);
    expect(() => process.kill(stoppedWorker, 0)).toThrow();
  }, 40_000);
});
