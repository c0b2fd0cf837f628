// Log lines wait up to FLUSH_MS in a batch (http/logger.ts): the batch still reaches standard output when the process
// ends, by SIGTERM (the shutdown hands it over) or by a crash (the exit handler does).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServerProcess } from '@plant-store/test-kit/server-process';
import { afterAll, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'plant-store-log-at-exit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('writes the access line of the last request answered before SIGTERM', async () => {
  const server = await startServerProcess({ DATABASE_URL: `sqlite:${join(dir, 'plants.db')}`, ACCESS_LOG: 'true' });
  const path = `/last-request-${Date.now()}`;
  expect((await fetch(`${server.url}${path}`)).status).toBe(404);
  server.child.kill('SIGTERM');
  expect(await server.exited).toBe(0);
  const line = server
    .output()
    .split('\n')
    .find((text) => text.includes(`"url":"${path}"`));
  expect(JSON.parse(line ?? '{}')).toMatchObject({ msg: 'request completed', res: { statusCode: 404 } });
}, 60_000);

it('writes the lines still waiting in the batch when the process crashes', async () => {
  const script = fileURLToPath(new URL('./fixtures/log-then-crash.mjs', import.meta.url));
  const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const code = await new Promise((resolve) => child.once('close', resolve));
  expect(stderr).toContain('crash on purpose');
  expect(code).toBe(1);
  expect(JSON.parse(stdout.trim())).toMatchObject({ level: 30, msg: 'last words before the crash' });
}, 30_000);
