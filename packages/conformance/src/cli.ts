// The command line's entry (`plant-store-conformance`, and `plant-store conformance` delegates here): runs the
// checker with Ctrl-C (SIGINT) or SIGTERM stopping the run and deleting what it created; a second one ends the process
// at once. `proxy` as the first argument runs the validating proxy instead (proxy/command.ts), which stops on the same
// signals.
import { type ProxyIo, proxyCommand } from './proxy/command.js';
import { type ConformanceIo, runConformance } from './run-conformance.js';

export type { ConformanceIo } from './run-conformance.js';

/**
 * What the command takes: the checker's io, and the fields only `proxy` reads (`signal` stops it as SIGINT or SIGTERM
 * do, `listening` is told its URL once it listens); the checker stops on those signals alone.
 */
export interface ConformanceCommandIo extends ConformanceIo, Pick<ProxyIo, 'signal' | 'listening'> {}

/**
 * Resolves to the exit code: 0 every check passed (the proxy: saw no violation), 1 a check failed (or interrupted; the
 * proxy: saw a violation), 2 usage error.
 */
export async function conformanceCommand(args: string[], io: ConformanceCommandIo): Promise<number> {
  if (args[0] === 'proxy') return proxyCommand(args.slice(1), io);
  const controller = new AbortController();
  const stop = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) process.exit(signal === 'SIGINT' ? 130 : 143);
    controller.abort();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  try {
    return await runConformance(args, io, controller.signal);
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}
