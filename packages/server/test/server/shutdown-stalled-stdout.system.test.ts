// SIGTERM while nobody reads standard output (a stalled log reader): the process still exits, well within
// SHUTDOWN_TIMEOUT_MS and the final flush's deadline, and says on standard error how much of the log was lost,
// instead of blocking in write(1) until a SIGKILL.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ServerProcess, startServerProcess } from '@plant-store/test-kit/server-process';
import { afterAll, beforeAll, expect, it } from 'vitest';

const SHUTDOWN_TIMEOUT_MS = 2_000;

let dir: string;
let server: ServerProcess;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'plant-store-stalled-stdout-'));
  server = await startServerProcess({
    DATABASE_URL: `sqlite:${join(dir, 'plants.db')}`,
    SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
    // A line per request: the log the stalled reader leaves behind.
    ACCESS_LOG: 'true',
  });
});
afterAll(async () => {
  if (server?.child.exitCode === null && server.child.signalCode === null) {
    server.child.kill('SIGKILL');
    await server.exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

it('exits after SIGTERM although standard output is not read, and says how much log was lost', async () => {
  // Nobody reads standard output from here on: the pipe and this side's buffer fill up.
  server.child.stdout!.removeAllListeners('data');
  server.child.stdout!.pause();
  const url = `${server.url}/no-such-path/${'x'.repeat(900)}`;
  for (let round = 0; round < 20; round++) {
    await Promise.all(Array.from({ length: 25 }, () => fetch(url).then((response) => response.arrayBuffer())));
  }
  server.child.kill('SIGTERM');
  // A generous cap, far beyond SHUTDOWN_TIMEOUT_MS: before, the process never exited by itself.
  const cap = new Promise((resolve) => setTimeout(resolve, SHUTDOWN_TIMEOUT_MS + 15_000, 'still running'));
  expect(await Promise.race([server.exited, cap])).toBe(0);
  expect(server.errors()).toMatch(/log lost at exit: standard output did not take the last [1-9]\d* bytes/);
}, 60_000);
