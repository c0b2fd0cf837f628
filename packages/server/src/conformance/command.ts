// The process side of `plant-store conformance`: Ctrl-C (SIGINT) or SIGTERM stops the run and deletes what it
// created; a second one ends the process at once.
import { type ConformanceIo, runConformance } from './run-conformance.js';

export async function conformanceCommand(args: string[], io: ConformanceIo): Promise<number> {
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
