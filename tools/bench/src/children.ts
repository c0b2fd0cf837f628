// Every process the benchmark starts is registered here and stopped on every way out: normal end, a thrown error,
// an unhandled rejection, SIGINT, SIGTERM, SIGHUP. Servers never outlive `pnpm bench`.
import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';

const children = new Set<ChildProcess>();
let installed = false;

function killAll(signal: NodeJS.Signals): void {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  }
}

function install(): void {
  if (installed) return;
  installed = true;
  // 'exit' handlers run synchronously: SIGKILL is the one signal that needs no answer from the child.
  process.on('exit', () => killAll('SIGKILL'));
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      console.error(`\nbench: ${signal}, stopping every server it started`);
      killAll('SIGKILL');
      process.exit(130);
    });
  }
  const fail = (error: unknown) => {
    console.error('bench failed:', error);
    killAll('SIGKILL');
    process.exit(1);
  };
  process.on('uncaughtException', fail);
  process.on('unhandledRejection', fail);
}

/** Spawns a child that is stopped when the benchmark ends, however it ends. */
export function spawnTracked(command: string, args: string[], options: SpawnOptions): ChildProcess {
  install();
  const child = spawn(command, args, options);
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the child has exited. */
export function stopChild(child: ChildProcess, graceMs = 5_000): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Runs a tracked child to its end; resolves with its exit code and what it wrote to stdout and stderr. */
export function runToEnd(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawnTracked(command, args, { env });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    // 'close', not 'exit': by then stdout and stderr have been read to their end.
    child.on('close', (code) =>
      resolve({ code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() }),
    );
  });
}
