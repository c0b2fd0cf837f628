// The servers the benchmark compares, each started pinned to core 0 and stopped afterwards.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Scenario } from './wrk.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(root, 'packages/server/bin/plant-store.js');

export interface Running {
  url: string;
  pid: number;
  token: string;
  stop(): Promise<void>;
}

export interface Target {
  name: string;
  scenarios: Scenario[];
  start(port: number): Promise<Running>;
}

async function waitForHealth(url: string, child: ChildProcess, path = '/healthz'): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`${url}: server exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}${path}`)).status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url}: server did not start`);
}

function launch(command: string[], env: Record<string, string>, node = process.execPath): ChildProcess {
  return spawn('taskset', ['-c', '0', node, ...command], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

function stopper(child: ChildProcess) {
  return () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
}

async function seed(url: string, token: string): Promise<void> {
  for (let id = 1; id <= 100; id++) {
    await fetch(`${url}/plants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id, name: `plant number ${id}`, tag: `tag${id}` }),
    });
  }
}

/** The Node binary and the checkout's `plant-store` bin a target runs; by default this Node and this checkout. */
export interface Runtime {
  node: string;
  bin: string;
}

export function plantStore(
  name: string,
  databaseUrl: () => string,
  env: Record<string, string> = {},
  scenarios: Scenario[] = ['get', 'create', 'delete'],
  runtime: Runtime = { node: process.execPath, bin: BIN },
): Target {
  return {
    name,
    scenarios,
    async start(port) {
      const DATABASE_URL = databaseUrl();
      const created = execFileSync(runtime.node, [runtime.bin, 'token', 'create', '--subject', 'bench'], {
        env: { ...process.env, DATABASE_URL },
        encoding: 'utf8',
      });
      const token = created.trim().split('\n').at(-1)!;
      const child = launch(
        [runtime.bin, 'serve'],
        { DATABASE_URL, PORT: String(port), LOG_LEVEL: 'warn', RATE_LIMIT_MAX: '0', ...env },
        runtime.node,
      );
      const url = `http://127.0.0.1:${port}`;
      await waitForHealth(url, child);
      await seed(url, token);
      return { url, pid: child.pid!, token, stop: stopper(child) };
    },
  };
}

export const sqliteFile = () => `sqlite:${join(mkdtempSync(join(tmpdir(), 'plant-store-bench-')), 'bench.db')}`;

export function targets(withPostgres: boolean): Target[] {
  const list: Target[] = [
    plantStore('plant-store, SQLite (group commit)', sqliteFile),
    plantStore('plant-store, SQLite (commit per request)', sqliteFile, { SQLITE_GROUP_COMMIT: 'false' }, [
      'create',
      'delete',
    ]),
  ];
  if (withPostgres) {
    list.push(
      plantStore('plant-store, PostgreSQL', () => `postgres://postgres@127.0.0.1:5432/test?schema=bench_${Date.now()}`),
    );
  }
  list.push(
    {
      name: 'bare Fastify, from memory (ceiling)',
      scenarios: ['get'],
      async start(port) {
        const child = launch(['--import', 'tsx', join(root, 'scripts/bench/bare-fastify.ts')], { PORT: String(port) });
        const url = `http://127.0.0.1:${port}`;
        await waitForHealth(url, child, '/plants');
        return { url, pid: child.pid!, token: 'unused', stop: stopper(child) };
      },
    },
    {
      name: 'Express 5 + express-openapi-validator, SQLite',
      scenarios: ['get', 'create', 'delete'],
      async start(port) {
        const token = 'bench-token';
        const dir = mkdtempSync(join(tmpdir(), 'plant-store-bench-express-'));
        const child = launch(['--import', 'tsx', join(root, 'scripts/bench/express-peer.ts')], {
          PORT: String(port),
          TOKEN: token,
          DATABASE_PATH: join(dir, 'peer.db'),
        });
        const url = `http://127.0.0.1:${port}`;
        await waitForHealth(url, child, '/nope');
        await seed(url, token);
        return { url, pid: child.pid!, token, stop: stopper(child) };
      },
    },
  );
  return list;
}
