// `serve --workers N` (cli/serve.ts): the primary migrates once, forks N server processes that share the port,
// replaces any that die, and passes SIGTERM and SIGINT on to them; it exits once every worker has.
import cluster from 'node:cluster';

/** True in a process that `superviseWorkers` forked. */
export const isWorker = cluster.isWorker;

/** Forks `workers` processes running this same program and supervises them; resolves when all have exited. */
export async function superviseWorkers(workers: number): Promise<void> {
  for (let i = 0; i < workers; i++) cluster.fork();
  const stop = (signal: NodeJS.Signals) => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  cluster.on('exit', (worker, code, signal) => {
    if (signal !== 'SIGTERM' && signal !== 'SIGINT' && code !== 0) {
      console.error(`plant-store: worker ${worker.process.pid} died (${signal ?? code}); starting another`);
      cluster.fork();
    }
  });
  await new Promise<void>((resolve) =>
    cluster.on('exit', () => Object.keys(cluster.workers ?? {}).length === 0 && resolve()),
  );
}
