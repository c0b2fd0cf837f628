// `plant-store conformance`: the @plant-store/conformance package's command (checks a running deployment against
// openapi.yaml from outside; it loads no configuration and opens no database), with the same flags and exit codes.
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
    {
      synopsis: 'conformance proxy --upstream URL --port P [...]',
      description: [
        'forward traffic to a deployment and check every request and answer',
        'against openapi.yaml; the report and exit code on Ctrl-C (see',
        '`plant-store conformance proxy --help`)',
      ],
    },
  ],
  async runStandalone(args, io) {
    // Loaded on demand: fast-check and the checks stay out of `serve`.
    const { conformanceCommand } = await import('@plant-store/conformance');
    return conformanceCommand(args, io);
  },
};
