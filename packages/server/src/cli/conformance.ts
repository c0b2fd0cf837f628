// `plant-store conformance`: checks a running deployment against openapi.yaml (src/conformance/). It loads no
// configuration and opens no database. Ctrl-C (SIGINT) or SIGTERM stops the run and deletes what it created; a second
// one ends the process at once.
import type { StandaloneCommand } from './command.js';

export const conformanceCommand: StandaloneCommand = {
  name: 'conformance',
  usage: [
    {
      synopsis: 'conformance --base-url URL --token T [...]',
      description: [
        'check a running deployment against openapi.yaml, from outside (no',
        'configuration or database needed; see `plant-store conformance --help`)',
      ],
    },
  ],
  async runStandalone(args, io) {
    // Loaded on demand: fast-check and the checks stay out of `serve`.
    const { runConformance } = await import('../conformance/run-conformance.js');
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
  },
};
