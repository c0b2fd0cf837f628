// `serve --workers N` (cli/serve.ts): the primary forks N server processes that share the port, passes SIGTERM and
// SIGINT on to them, and exits once every worker has. A worker that ends before it listens means start-up fails (port
// taken, database lost): the primary stops the others and exits non-zero, so a supervisor sees it rather than a
// primary with zombie workers. A worker that crashes after listening is replaced after a delay that doubles with
// each crash in a row (1 s up to 30 s; a minute without a crash starts again at 1 s). Stopping has a deadline: a
// worker still running STOP_MARGIN_MS after its own shutdown deadline (SHUTDOWN_TIMEOUT_MS, close-with-grace's) has
// a blocked event loop or is stopped; it is killed and the primary exits non-zero, so a supervisor never waits on it.
import cluster, { type Worker } from 'node:cluster';

/** True in a process that `superviseWorkers` forked. */
export const isWorker = cluster.isWorker;

export const RESTART_FIRST_MS = 1_000;
export const RESTART_MAX_MS = 30_000;
/** A crash this long after the previous one counts as the first of a new series. */
const STABLE_MS = 60_000;
/** How long past a worker's own shutdown deadline the primary waits before killing it. */
export const STOP_MARGIN_MS = 2_000;

/** The delay before replacing a worker after `crashesInARow` earlier crashes. */
export function restartDelayMs(crashesInARow: number): number {
  return Math.min(RESTART_FIRST_MS * 2 ** Math.min(crashesInARow, 16), RESTART_MAX_MS);
}

/**
 * Forks `workers` processes running this same program and supervises them; resolves with the primary's exit code
 * once all have exited: 0 after a signal, 1 when a worker could not start or had to be killed after `shutdownTimeoutMs`
 * (the workers' own shutdown deadline) and STOP_MARGIN_MS.
 */
export async function superviseWorkers(
  workers: number,
  shutdownTimeoutMs: number,
  log: (line: string) => void = (line) => console.error(`plant-store: ${line}`),
): Promise<number> {
  const listening = new WeakSet<Worker>();
  const restarts = new Set<NodeJS.Timeout>();
  let stopping = false;
  let failed = false;
  let crashesInARow = 0;
  let lastCrashAt = 0;

  let deadline: NodeJS.Timeout | undefined;
  const stop = (signal: NodeJS.Signals) => {
    stopping = true;
    for (const timer of restarts) clearTimeout(timer);
    restarts.clear();
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
    deadline ??= setTimeout(() => {
      for (const worker of Object.values(cluster.workers ?? {})) {
        if (!worker) continue;
        failed = true;
        log(
          `worker ${worker.process.pid} did not stop within ${(shutdownTimeoutMs + STOP_MARGIN_MS) / 1000} s; killing it`,
        );
        worker.process.kill('SIGKILL');
      }
    }, shutdownTimeoutMs + STOP_MARGIN_MS);
    // The workers' channels keep the primary running until they exit; the deadline alone must not.
    deadline.unref();
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  cluster.on('listening', (worker) => listening.add(worker));

  const done = new Promise<number>((resolve) => {
    const settleIfDone = () => {
      if (Object.keys(cluster.workers ?? {}).length === 0 && restarts.size === 0) {
        clearTimeout(deadline);
        resolve(failed ? 1 : 0);
      }
    };
    cluster.on('exit', (worker, code, signal) => {
      const how = signal ?? `exit code ${code}`;
      if (!stopping && !listening.has(worker)) {
        failed = true;
        log(`worker ${worker.process.pid} ended before it could serve (${how}); stopping the others and exiting`);
        stop('SIGTERM');
      } else if (!stopping && signal !== 'SIGTERM' && signal !== 'SIGINT' && code !== 0) {
        const now = Date.now();
        if (now - lastCrashAt > STABLE_MS) crashesInARow = 0;
        lastCrashAt = now;
        const delay = restartDelayMs(crashesInARow++);
        log(`worker ${worker.process.pid} died (${how}); starting another in ${delay / 1000} s`);
        const timer = setTimeout(() => {
          restarts.delete(timer);
          if (!stopping) cluster.fork();
          settleIfDone();
        }, delay);
        restarts.add(timer);
      }
      settleIfDone();
    });
  });
  for (let i = 0; i < workers; i++) cluster.fork();
  return done;
}
