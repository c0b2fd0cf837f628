// A start-up that fails closes what it opened and exits non-zero within seconds, so a supervisor sees it: the API
// port taken (with the metrics listener already open), or a second instance on the default metrics port.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../../support/process.js';

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
function serve(env: Record<string, string>, args: string[] = [], limitMs = 45_000) {
  const child = spawn(process.execPath, [BIN, 'serve', ...args], {
    env: { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'warn', DATABASE_URL: `sqlite:${join(dir, 'x.db')}`, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
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

  it('with --workers 2 and the API port taken: the workers cannot start, so the primary exits', async () => {
    const result = await serve({ PORT: String(port), METRICS_PORT: 'off' }, ['--workers', '2'], 90_000);
    expect(result.code).toBe(1);
    expect(result.output).toContain('ended before it could serve');
  }, 100_000);

  it('on a metrics port in use, naming METRICS_PORT and how to change or disable it', async () => {
    const result = await serve({ PORT: '0', METRICS_PORT: String(port) });
    expect(result.code).toBe(1);
    expect(result.output).toContain(`127.0.0.1:${port} is already in use (EADDRINUSE`);
    expect(result.output).toMatch(/set METRICS_PORT to a free port .*METRICS_PORT=off/);
  }, 60_000);
});
