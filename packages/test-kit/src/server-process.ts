// Test support: the real `plant-store` command as a child process, and waiting for it to listen.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { issueToken, openStore } from '@plant-store/server';
import { endWithWorker, kill, marked } from './process-guard.js';

/** The server package's `plant-store` command in this checkout. */
export const BIN = fileURLToPath(new URL('../../server/bin/plant-store.js', import.meta.url));

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  /** Everything the process wrote to stdout so far (JSON log lines). */
  output(): string;
  /** Everything the process wrote to stderr so far. */
  errors(): string;
  /** Resolves with the exit code or signal once the process has ended. */
  exited: Promise<number | NodeJS.Signals | null>;
}

export interface StartOptions {
  /** The command line before `serve`; this checkout's bin on this Node unless given (a deployed copy, say). */
  command?: string[];
  /** The environment the process starts from, before `env`; this process's unless given. */
  baseEnv?: Record<string, string | undefined>;
  cwd?: string;
  /** What follows the command line; `serve` unless given (`[]` for `pnpm start`, which serves by itself). */
  subcommand?: string[];
  /** Starts the process in a process group of its own (its pid is the group's id), to find what it started. */
  detached?: boolean;
  /** How long it may take to listen before it is killed (its whole group when detached) and the start fails. */
  startTimeoutMs?: number;
}

/**
 * How long a start may take by default: a second or two on an idle machine, many times that at load 20 on two cores
 * (the bound is against a start that hangs, not a slow one).
 */
export const START_TIMEOUT_MS = 45_000;

/** Starts `plant-store serve` on a free port and resolves once it listens. */
export async function startServerProcess(
  env: Record<string, string>,
  args: string[] = [],
  {
    command = [process.execPath, BIN],
    baseEnv = process.env,
    cwd,
    subcommand = ['serve'],
    detached,
    startTimeoutMs = START_TIMEOUT_MS,
  }: StartOptions = {},
): Promise<ServerProcess> {
  const [executable, ...prefix] = command;
  const child = spawn(executable!, [...prefix, ...subcommand, ...args], {
    ...(detached ? { detached } : {}),
    // Metrics off unless a test asks: processes started together would all want the default metrics port.
    env: marked({ ...baseEnv, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', METRICS_PORT: 'off', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(cwd ? { cwd } : {}),
  });
  endWithWorker(child, detached === true);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) =>
    child.once('exit', (code, signal) => resolve(signal ?? code)),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      // The test never gets a handle on a start that failed: end it here, or it outlives the run.
      if (child.pid !== undefined) kill(child.pid, detached === true);
      reject(new Error(`server did not start within ${startTimeoutMs} ms: ${stdout}${stderr}`));
    }, startTimeoutMs);
    const poll = setInterval(() => {
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
      if (match?.[1]) {
        clearInterval(poll);
        clearTimeout(timer);
        resolve(match[1]);
      }
    }, 20);
    void exited.then((code) => {
      clearInterval(poll);
      clearTimeout(timer);
      reject(new Error(`server exited (${String(code)}) before listening: ${stdout}${stderr}`));
    });
  });
  return { child, url, output: () => stdout, errors: () => stderr, exited };
}

/** Issues a token for `subject` in the database at `databaseUrl` (migrated first), as `plant-store token create`. */
export async function tokenIn(databaseUrl: string, subject: string): Promise<string> {
  const store = await openStore(databaseUrl);
  try {
    await store.migrate();
    return (await issueToken(store.tokens, { subject })).token;
  } finally {
    await store.close();
  }
}

/** Stops the processes with SIGTERM and waits until every one has exited. */
export async function stopAll(processes: readonly ServerProcess[]): Promise<void> {
  for (const server of processes) server.child.kill('SIGTERM');
  await Promise.all(processes.map((server) => server.exited));
}
