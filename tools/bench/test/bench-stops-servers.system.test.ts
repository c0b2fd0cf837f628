// `pnpm bench` never leaves a server behind: a missing wrk stops it before any server starts (with the install
// command), and a failing run or a signal stops every server it started. A stand-in `wrk` script plays the load
// generator (failing, or never finishing), so no real wrk is needed.
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from '@plant-store/test-kit';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));

function bench(args: string[], path: string): { child: ChildProcess; output: () => string; exited: Promise<number> } {
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=source', 'tools/bench/bench.ts', ...args], {
    cwd: root,
    env: { ...process.env, PATH: path },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout?.on('data', (chunk) => {
    text += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    text += chunk;
  });
  const exited = new Promise<number>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 : 0))),
  );
  return { child, output: () => text, exited };
}

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** A PATH whose `wrk` is a script of our own (or none at all), then the system's. */
function pathWith(wrkScript?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'bench-path-'));
  if (wrkScript) {
    writeFileSync(join(dir, 'wrk'), wrkScript);
    chmodSync(join(dir, 'wrk'), 0o755);
    return `${dir}:${process.env.PATH}`;
  }
  // Nothing else either: the check comes before anything else the bench runs.
  return dir;
}

const args = (port: number) => [
  '--no-postgres',
  '--no-scale',
  '--rounds',
  '1',
  '--seconds',
  '30',
  '--port',
  String(port),
];
// Printed once a server answers its health check, before seeding: the test can stop the bench at any point after.
const STARTED = /started at http:\/\/127\.0\.0\.1:(\d+), pid (\d+)/;
const started = (output: string) => STARTED.exec(output);

describe('pnpm bench', () => {
  it('stops at once with the install command when wrk is missing', async () => {
    const run = bench(args(4961), pathWith());
    expect(await run.exited).toBe(2);
    expect(run.output()).toContain('apt-get install -y wrk');
    expect(started(run.output())).toBeNull();
    expect(await listening(4961)).toBe(false);
  });

  it('stops every server it started when a load run fails (the headline group starts several at once)', async () => {
    const run = bench(
      args(4971),
      pathWith('#!/bin/sh\n[ "$1" = --version ] && exit 1\necho "wrk: broken" >&2\nexit 1\n'),
    );
    const code = await run.exited;
    const servers = [...run.output().matchAll(new RegExp(STARTED.source, 'g'))];
    expect(servers.length, run.output()).toBeGreaterThan(1);
    expect(code).not.toBe(0);
    expect(run.output()).toContain('wrk: broken');
    for (const [, port, pid] of servers) {
      expect(alive(Number(pid))).toBe(false);
      expect(await listening(Number(port))).toBe(false);
    }
  }, 300_000);

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`stops every server on ${signal}`, async () => {
      const port = signal === 'SIGINT' ? 4981 : 4991;
      // A wrk that never finishes keeps the bench mid-run (and needs no wrk on the machine).
      const run = bench(args(port), pathWith('#!/bin/sh\n[ "$1" = --version ] && exit 1\nexec sleep 60\n'));
      await waitFor('the first server', () => started(run.output()) !== null, { timeoutMs: 120_000 });
      const pid = Number(started(run.output())![2]);
      expect(alive(pid)).toBe(true);
      run.child.kill(signal);
      expect(await run.exited).not.toBe(0);
      await waitFor('the server to exit', () => !alive(pid), { timeoutMs: 5_000 });
      expect(await listening(port)).toBe(false);
    }, 180_000);
  }
});
