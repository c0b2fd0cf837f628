// Starting and stopping the way a user does: `pnpm start` (the README's `npx -y pnpm@10.34.9 start`) on a built tree
// answers without compiling (no build's line, no dist/ file written: how fast it starts is the bench's to say), and a
// SIGTERM to the process the user started (npx, or the
// node_modules/.bin/node shim, neither of which passes signals on) stops the service: its port closes and no process
// it started remains. A SIGINT to `pnpm start`, or a Ctrl-C to its process group, stops it quietly with exit 0 (no
// ELIFECYCLE), and a SIGINT to npx, whose shell keeps it, stops the service too.

import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { waitFor } from '@plant-store/test-kit';
import { BIN, type ServerProcess, startServerProcess } from '@plant-store/test-kit/server-process';
import { afterEach, beforeEach, expect, it } from 'vitest';

const ROOT = new URL('../../../../', import.meta.url).pathname;
const run = promisify(execFile);
const SHIM = join(ROOT, 'node_modules/.bin/node');

let dir: string;
let started: ServerProcess | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'plant-store-start-'));
});
afterEach(() => {
  // Whatever a failed test left behind: the whole process group.
  if (started?.child.pid) {
    try {
      process.kill(-started.child.pid, 'SIGKILL');
    } catch {}
  }
  started = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** The processes of a process group, from /proc (zombies included: they have not been reaped yet). */
function processGroup(group: number): string[] {
  const members: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === group) members.push(`${entry} ${stat.slice(0, stat.lastIndexOf(')') + 1)}`);
    } catch {}
  }
  return members;
}

function portRefuses(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

async function expectStoppedBy(server: ServerProcess, signal: NodeJS.Signals = 'SIGTERM', toGroup = false) {
  const group = server.child.pid!;
  expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  if (toGroup) process.kill(-group, signal);
  else server.child.kill(signal);
  await waitFor(
    'the port to close and every process of the group to end',
    async () => (await portRefuses(server.url)) && processGroup(group).length === 0,
    { timeoutMs: 5_000, everyMs: 50 },
  ).catch((error: Error) => {
    throw new Error(`${error.message}; still there: ${processGroup(group).join('; ')}`);
  });
  expect(server.output()).toContain('shutting down');
}

const env = () => ({ DATABASE_URL: `sqlite:${join(dir, 'plants.db')}` });

/** Every file of the server's and its workspace dependencies' dist/, with its modification time. */
function builtFiles(): Record<string, number> {
  const files: Record<string, number> = {};
  for (const name of ['contract', 'core', 'server']) {
    const dist = join(ROOT, 'packages', name, 'dist');
    for (const entry of readdirSync(dist, { recursive: true, encoding: 'utf8' })) {
      const stat = statSync(join(dist, entry));
      if (stat.isFile()) files[join(name, entry)] = stat.mtimeMs;
    }
  }
  return files;
}

/** pnpm itself, as `pnpm start` runs it: npx's own start-up (a second or more on a busy machine) is not the service's. */
async function pnpm(): Promise<string> {
  const { stdout } = await run('npx', ['-y', '-p', 'pnpm@10.34.9', 'sh', '-c', 'command -v pnpm'], { cwd: ROOT });
  return stdout.trim();
}

it('pnpm start on a built tree answers /healthz, compiling nothing', async () => {
  const bin = await pnpm();
  const built = builtFiles();
  started = await startServerProcess(env(), [], {
    command: [bin, 'start'],
    subcommand: [],
    cwd: ROOT,
    detached: true,
  });
  expect((await fetch(`${started.url}/healthz`)).status).toBe(200);
  expect(started.errors()).not.toContain('compiled');
  expect(builtFiles()).toEqual(built);
  await expectStoppedBy(started);
}, 60_000);

it("SIGTERM to the README's `npx -y pnpm@10.34.9 start` stops the service", async () => {
  started = await startServerProcess(env(), [], {
    command: ['npx', '-y', 'pnpm@10.34.9', 'start'],
    subcommand: [],
    cwd: ROOT,
    detached: true,
  });
  await expectStoppedBy(started);
}, 60_000);

it('SIGTERM to the node_modules/.bin/node shim (a shell that does not exec) stops the service', async () => {
  started = await startServerProcess(env(), [], { command: [SHIM, BIN], detached: true });
  // The shim is a shell script: the server is its child, not the process signalled.
  expect(readFileSync(`/proc/${started.child.pid}/cmdline`, 'utf8')).toContain('node_modules/.bin/node');
  await expectStoppedBy(started);
  expect(started.errors()).toContain('has ended: shutting down');
}, 60_000);

it.each([
  ['SIGINT to pnpm start', false],
  ["a terminal's Ctrl-C (SIGINT to the whole group) of pnpm start", true],
])(
  '%s stops the service quietly, exit 0',
  async (_name, toGroup) => {
    started = await startServerProcess(env(), [], {
      // On Node itself, as a pnpm installed on the machine runs: on this test's PATH its `#!/usr/bin/env node` finds
      // the node_modules/.bin/node shim, a shell that keeps a SIGINT to itself and raises it once its child ended.
      command: [process.execPath, await pnpm(), 'start'],
      subcommand: [],
      cwd: ROOT,
      detached: true,
    });
    await expectStoppedBy(started, 'SIGINT', toGroup);
    expect(await started.exited).toBe(0);
    expect(started.output() + started.errors()).not.toMatch(/ELIFECYCLE|second signal/);
  },
  60_000,
);

it("SIGINT to the README's `npx -y pnpm@10.34.9 start` stops the service, pnpm quietly", async () => {
  started = await startServerProcess(env(), [], {
    command: ['npx', '-y', 'pnpm@10.34.9', 'start'],
    subcommand: [],
    cwd: ROOT,
    detached: true,
  });
  await expectStoppedBy(started, 'SIGINT');
  expect(started.errors()).toContain('was interrupted: shutting down');
  expect(started.output() + started.errors()).not.toMatch(/ELIFECYCLE/);
}, 60_000);

it('a stop and continue of the whole group (Ctrl-Z, then fg) does not stop the service', async () => {
  started = await startServerProcess(env(), [], { command: [SHIM, BIN], detached: true });
  const group = started.child.pid!;
  process.kill(-group, 'SIGSTOP');
  await new Promise((resolve) => setTimeout(resolve, 500));
  process.kill(-group, 'SIGCONT');
  // Several of the launcher watch's polls.
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  expect((await fetch(`${started.url}/healthz`)).status).toBe(200);
  expect(started.errors()).not.toContain('shutting down');
  await expectStoppedBy(started);
}, 60_000);
