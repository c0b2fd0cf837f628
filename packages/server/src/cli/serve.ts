// `plant-store serve [--workers N]`: migrate, then serve the API; with N > 1 the primary forks N workers.
import { availableParallelism } from 'node:os';
import { isWorker, superviseWorkers } from '../cluster/supervise-workers.js';
import { serveClusterMetrics } from '../observability/start-observability.js';
import { runServer } from '../server.js';
import { type Command, parse, UsageError, withStore } from './command.js';

export const serveCommand: Command = {
  name: 'serve',
  usage: [
    {
      synopsis: 'serve [--workers N]',
      description: ['migrate, then serve the API (default); N processes share the port'],
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
    if (workers > 1 && !isWorker) {
      // Migrate once here so the workers start on an up-to-date schema, then fork; the workers share the port.
      await withStore(config, async () => {});
      const closeMetrics = await serveClusterMetrics(config);
      await superviseWorkers(workers);
      closeMetrics();
      return 0;
    }
    await runServer(config);
    return -1; // keeps running until a signal
  },
};
