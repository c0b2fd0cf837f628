// A start-up that fails closes what it opened and exits non-zero within seconds, so a supervisor sees it: the API
// port taken (with the metrics listener already open, or Redis connected), or a second instance on the default metrics
// port.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN } from '@plant-store/test-kit/server-process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'plant-store-start-up-'));
let taken: Server;
let port: number;

beforeAll(async () => {
  taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  port = (taken.address() as { port: number }).port;
});
afterAll(() => {
  taken.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `plant-store serve ...` and resolves with how it ended, or kills it (`code: 'hung'`) after `limitMs`. */
function serve(
  env: Record<string, string>,
  args: string[] = [],
  limitMs = 45_000,
  started?: (primary: number, output: () => string) => void,
) {
  const child = spawn(process.execPath, [BIN, 'serve', ...args], {
    env: { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'warn', DATABASE_URL: `sqlite:${join(dir, 'x.db')}`, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  started?.(child.pid!, () => output);
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  return new Promise<{ code: number | string | null; output: string }>((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve({ code: 'hung', output });
    }, limitMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? signal, output });
    });
  });
}

describe('a failed start-up exits', () => {
  it('with the API port taken, closing the metrics listener it had opened', async () => {
    const result = await serve({ PORT: String(port), METRICS_PORT: '0' });
    expect(result.code).toBe(1);
    expect(result.output).toContain('EADDRINUSE');
  }, 60_000);

  it('with the API port taken and Redis reachable, naming the port and never Redis', async () => {
    // The machine's Redis, as multi-instance.system.test.ts uses: closing the client on the way out is no outage.
    const result = await serve({
      PORT: String(port),
      METRICS_PORT: 'off',
      LOG_LEVEL: 'info',
      REDIS_URL: 'redis://127.0.0.1:6379',
      RATE_LIMIT_MAX: '100',
    });
    expect(result.code).toBe(1);
    expect(result.output).toContain('EADDRINUSE');
    expect(result.output).not.toMatch(/redis/i);
  }, 60_000);

  it('with --workers 2 and the API port taken: the workers cannot start, so the primary exits', async () => {
    const result = await serve({ PORT: String(port), METRICS_PORT: 'off' }, ['--workers', '2'], 90_000);
    expect(result.code).toBe(1);
    expect(result.output).toContain('ended before it could serve');
  }, 100_000);

  it('with --workers 2, when a crashed worker’s replacement cannot start (its database lost), the primary exits', async () => {
    const free = createServer();
    await new Promise<void>((resolve) => free.listen(0, '127.0.0.1', resolve));
    const api = (free.address() as { port: number }).port;
    await new Promise((resolve) => free.close(resolve));
    const database = join(dir, 'lost.db');
    let primary = 0;
    let outputSoFar = () => '';
    const ended = serve(
      // info: each worker says when it listens ("Server listening at ...").
      { PORT: String(api), METRICS_PORT: 'off', DATABASE_URL: `sqlite:${database}`, LOG_LEVEL: 'info' },
      ['--workers', '2'],
      60_000,
      (pid, output) => {
        primary = pid;
        outputSoFar = output;
      },
    );
    // Both workers serve, then the database goes and one worker crashes: its replacement, a second later, must not
    // start on a lost database, so the primary stops the other worker and exits for its supervisor to see.
    for (let i = 0; ; i++) {
      const ready = await fetch(`http://127.0.0.1:${api}/healthz`).then(
        (answer) => answer.status === 200,
        () => false,
      );
      const workers = readFileSync(`/proc/${primary}/task/${primary}/children`, 'utf8').trim().split(/\s+/);
      const listening = outputSoFar().match(/Server listening at/g)?.length ?? 0;
      if (ready && workers.length === 2 && listening >= 2) break;
      if (i > 300) throw new Error('the workers did not start');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${database}${suffix}`, { force: true });
    const [victim] = readFileSync(`/proc/${primary}/task/${primary}/children`, 'utf8').trim().split(/\s+/);
    process.kill(Number(victim), 'SIGKILL');
    const result = await ended;
    expect(result.code).toBe(1);
    expect(result.output).toContain('starting another in 1 s');
    expect(result.output).toContain('ended before it could serve');
  }, 90_000);

  it('on a metrics port in use, naming METRICS_PORT and how to change or disable it', async () => {
    const result = await serve({ PORT: '0', METRICS_PORT: String(port) });
    expect(result.code).toBe(1);
    expect(result.output).toContain(`127.0.0.1:${port} is already in use (EADDRINUSE`);
    expect(result.output).toMatch(/set METRICS_PORT to a free port .*METRICS_PORT=off/);
  }, 60_000);
});
