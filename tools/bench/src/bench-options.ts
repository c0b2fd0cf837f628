// `pnpm bench`'s options and its --help text.
import { parseArgs } from 'node:util';

export const BENCH_HELP = `Usage: pnpm bench [options]

Runs every target side by side (servers on core 0, wrk and the open-loop generator on core 1) and writes
docs/benchmarks.md and docs/benchmarks.svg, ending with every goal met or missed. Needs Debian's wrk
(apt-get install -y wrk). \`pnpm bench:report\` is the report run (about 15 minutes on 2 cores).

  --rounds N          rounds (default 3): of the closed-loop stage (each starts every target in turn, the order
                      rotating by one) and of the headline groups (their servers started once, measured N times)
  --seconds N         seconds per closed-loop run (default 5; deletes half of it, or less where the create run's
                      plants would run out), each after a warm-up on its scenario (runs of 2 s until steady)
  --open-seconds N    seconds per open-loop run (default 4)
  --connections N     wrk connections (default 50)
  --scenarios LIST    the closed-loop stage's scenarios among get,create,delete,mixed (default all)
  --targets TEXT      the closed-loop stage's targets whose name contains one of the comma-separated TEXTs
                      (e.g. "SQLite, defaults,Express"); none skips the stage
  --no-headline       skip the headline groups (per store: plant-store defaults and tuned, the floor, bare
                      Fastify, the Express peer, up at once: hot read, mixed, open loop, peak RSS)
  --no-postgres       skip the PostgreSQL targets (also skipped when pg_isready fails)
  --no-scale          skip the cost-growth runs (1k, 100k, 1M plants)
  --workers LIST      also run the workers stage: \`serve --workers N\` (SQLite, mixed) for each N in LIST, e.g.
                      1,2 on 2 cores, 1,2,4,8 on 16; N on cores 0..N-1 and wrk on the rest where the machine has
                      N+1 cores, else unpinned with wrk on the last core
  --cpu-prof DIR      the workers stage's servers write V8 CPU profiles into DIR (a folder per N and round,
                      warm-up included), and the stage prints each one's largest self times
  --layers all|LIST   only price the layers (all, or the comma-separated names), print the table, write nothing
  --no-layers         skip the layer pricing in a full run
  --layer-rounds N    rounds of the layer pricing (default: --rounds)
  --port N            the first server's port (default 3950)
  --soak N            only the sustained-load test, N seconds
  --data LIST         only the export and import stage (src/data-stage.ts), for each plant count in LIST
                      (\`pnpm bench:data\`: 100000,1000000)
  --help              this text

Layer pricing: the SQLite service on its defaults next to one variant per layer with that layer switched off
(tracing: on), each started once and seeded, measured in turn on the hot read and the mixed workload. The figure is
the server's CPU time per request; a layer's price is the difference to the defaults'. Switches are real
configuration (LOG_LEVEL, METRICS_PORT, RATE_LIMIT_MAX, MAX_EVENT_LOOP_DELAY_MS, OTEL_*) or bench layers
(tools/bench/src/layer-switches.ts) that tools/bench/src/variant-server.ts turns into buildApp's options.`;

export function benchOptions(argv = process.argv.slice(2)) {
  const { values } = parseArgs({
    args: argv,
    options: {
      seconds: { type: 'string', default: '5' },
      'open-seconds': { type: 'string', default: '4' },
      rounds: { type: 'string', default: '3' },
      connections: { type: 'string', default: '50' },
      'no-postgres': { type: 'boolean', default: false },
      'no-scale': { type: 'boolean', default: false },
      'no-headline': { type: 'boolean', default: false },
      port: { type: 'string', default: '3950' },
      soak: { type: 'string' },
      data: { type: 'string' },
      help: { type: 'boolean', default: false },
      scenarios: { type: 'string', default: 'get,create,delete,mixed' },
      targets: { type: 'string' },
      layers: { type: 'string' },
      'no-layers': { type: 'boolean', default: false },
      'layer-rounds': { type: 'string' },
      workers: { type: 'string' },
      'cpu-prof': { type: 'string' },
    },
  });
  return values;
}
