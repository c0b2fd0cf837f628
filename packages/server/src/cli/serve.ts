// `plant-store serve [--workers N]`: migrate, then serve the API; with N > 1 the primary forks N workers.
import { availableParallelism } from 'node:os';
import { isWorker, superviseWorkers } from '../cluster/supervise-workers.js';
import type { Config } from '../config.js';
import { serveClusterMetrics } from '../observability/start-observability.js';
import { runServer } from '../server.js';
import { type Command, parse, UsageError, withStore } from './command.js';
import { watchLaunchers } from './launcher-watch.js';

/**
 * A SIGTERM to `pnpm start` or to the node shim ends that launcher only, and a SIGINT to npx stays with its shell:
 * stop as if the signal had reached this process.
 */
function stopWithLauncher(): void {
  if (isWorker) return;
  watchLaunchers((launcher, event) => {
    console.error(
      `plant-store: the process that started this one (pid ${launcher.pid}, ${launcher.argv.slice(0, 2).join(' ')}) ${event === 'ended' ? 'has ended' : 'was interrupted'}: shutting down`,
    );
    process.kill(process.pid, event === 'ended' ? 'SIGTERM' : 'SIGINT');
  });
}

/**
 * Without Redis each process counts rate limits on its own, so N workers would give every principal N times
 * RATE_LIMIT_MAX: each worker allows its share instead (at least 1), the whole service at most the configured budget.
 */
export function perWorker(config: Config, workers: number): Config {
  if (!config.rateLimit || config.redisUrl) return config;
  const share = (max: number) => (max === 0 ? 0 : Math.max(1, Math.floor(max / workers)));
  const { max, anonymousMax } = config.rateLimit;
  const rateLimit = Object.freeze({ ...config.rateLimit, max: share(max), anonymousMax: share(anonymousMax) });
  return Object.freeze({ ...config, rateLimit });
}

export const serveCommand: Command = {
  name: 'serve',
  usage: [
    {
      synopsis: 'serve [--workers N]',
      description: ['migrate, then serve the API (default); N processes share the port'],
      options: [
        '--workers N   N worker processes behind one port (1 to 64, default 1); the primary migrates once,',
        '              restarts a worker that crashes (after a growing delay), and exits when workers cannot start',
      ],
      notes: [
        'Stops on SIGTERM or SIGINT once in-flight requests are answered (SHUTDOWN_TIMEOUT_MS); exits non-zero',
        'when start-up fails (a port in use, the database unreachable).',
      ],
    },
  ],
  async run(args, { config }) {
    const { values } = parse(args, { workers: { type: 'string' } });
    const workers = values.workers === undefined ? 1 : Number(values.workers);
    if (!Number.isInteger(workers) || workers < 1 || workers > 64) {
      throw new UsageError(
        `--workers must be a whole number from 1 to 64 (this machine has ${availableParallelism()} cores)`,
      );
    }
    stopWithLauncher();
    if (workers > 1 && !isWorker) {
      // Migrate once here so the workers start on an up-to-date schema, then fork; the workers share the port.
      await withStore(config, async () => {});
      const closeMetrics = await serveClusterMetrics(config);
      const code = await superviseWorkers(workers, config.shutdownTimeoutMs);
      closeMetrics();
      return code;
    }
    await runServer(workers > 1 ? perWorker(config, workers) : config);
    return -1; // keeps running until a signal
  },
};
