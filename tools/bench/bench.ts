// `pnpm bench`: throughput, latency and memory of the service on its defaults and tuned, next to the floor of Node's
// HTTP stack, the framework's ceiling and its peers, measured side by side in one run (servers on core 0, wrk and
// the open-loop generator on core 1), written to docs/benchmarks.md with a chart and ending with every goal met or
// missed (src/bench-goals.ts). `pnpm bench --help` lists the stages and options.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchGoals, type RunFigures } from './src/bench-goals.js';
import { BENCH_HELP, benchOptions } from './src/bench-options.js';
import { closedStage } from './src/closed-stage.js';
import { showSummary, summariseProfiles } from './src/cpu-profiles.js';
import { dataStage } from './src/data-stage.js';
import { judgeGoal, showGoalFigure } from './src/goals.js';
import { headlineSides, LOADS, type Store } from './src/headline.js';
import { layers as layerList, layerTable } from './src/layers.js';
import type { OpenLoopResult } from './src/open-loop.js';
import { chart, report } from './src/report.js';
import { readIfPresent, withKeptNotes } from './src/report-file.js';
import { costGrowth, LAYOUTS } from './src/scale.js';
import { sdkOverhead } from './src/sdk-overhead.js';
import { type Group, sideBySide } from './src/side-by-side.js';
import { soak } from './src/soak.js';
import { Samples } from './src/stats.js';
import { BARE, SQLITE, targets } from './src/targets.js';
import { workersStage } from './src/workers-stage.js';
import { requireWrk } from './src/wrk.js';

const values = benchOptions();
if (values.help) {
  console.log(BENCH_HELP);
  process.exit(0);
}
requireWrk();
const seconds = Number(values.seconds);
const openSeconds = Number(values['open-seconds']);
const rounds = Number(values.rounds);
const connections = Number(values.connections);
/** Seconds of each warm-up run (warm-up.ts repeats them until steady). */
const WARM_UP_SECONDS = 2;
const log = (line: string) => console.log(line);
const docs = fileURLToPath(new URL('../../docs/', import.meta.url));
const began = Date.now();
const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const loadAtStart = loadAverage();

if (values.soak) process.exit((await soak(Number(values.soak), connections)) ? 0 : 1);
const postgresUp =
  !values['no-postgres'] &&
  (() => {
    try {
      execFileSync('pg_isready', ['-h', '127.0.0.1', '-p', '5432', '-q']);
      return true;
    } catch {
      return false;
    }
  })();
if (values.data) {
  process.exit((await dataStage(values.data.split(',').map(Number), postgresUp, Number(values.port))) ? 0 : 1);
}

let port = Number(values.port);
let nextBase = 1_000_000;
const newBase = () => (nextBase += 10_000_000);
const layerRounds = Number(values['layer-rounds'] ?? rounds);
async function layerTableHere(pick: string[] | undefined): Promise<string> {
  const { table, ports } = await layerTable({
    pick,
    rounds: layerRounds,
    seconds,
    warmUpSeconds: WARM_UP_SECONDS,
    connections,
    port,
    log,
  });
  port += ports;
  return table;
}
if (values.layers !== undefined) {
  const pick = values.layers === '' || values.layers === 'all' ? undefined : values.layers.split(',');
  // A name that matches no layer would price only the default and "everything off", as if asked.
  const names = layerList('').map((layer) => layer.name);
  const unknown = (pick ?? []).filter((name) => !names.includes(name));
  if (unknown.length > 0) {
    console.error(
      `bench: no layer named ${unknown.map((name) => `"${name}"`).join(', ')}; the layers: ${names.join(', ')}`,
    );
    process.exit(2);
  }
  console.log(`\n${await layerTableHere(pick)}`);
  process.exit(0);
}

const stores: Store[] = postgresUp ? ['SQLite', 'PostgreSQL'] : ['SQLite'];
const wanted = values.targets?.split(',').map((text) => text.trim());
const chosenScenarios = new Set(values.scenarios.split(',').map((text) => text.trim()));
const list = targets(postgresUp)
  .filter((target) => !wanted || wanted.some((text) => target.name.includes(text)))
  .map((target) => ({ ...target, scenarios: target.scenarios.filter((scenario) => chosenScenarios.has(scenario)) }))
  .filter((target) => target.scenarios.length > 0);

const groups = new Map<Store, Group>();
for (const store of values['no-headline'] ? [] : stores) {
  log(`headline, ${store}: ${rounds} rounds, the servers up at once`);
  groups.set(
    store,
    await sideBySide({
      name: `${store}`,
      sides: headlineSides(store),
      rateSide: BARE,
      loads: LOADS,
      rounds,
      seconds,
      openSeconds,
      warmUpSeconds: WARM_UP_SECONDS,
      connections,
      port,
      newBase,
      log,
    }),
  );
  port += headlineSides(store).length;
}

let sdk: Awaited<ReturnType<typeof sdkOverhead>> | undefined;
const closed = await closedStage({
  targets: list,
  rounds,
  seconds,
  deleteSeconds: Math.max(2, Math.round(seconds / 2)),
  warmUpSeconds: WARM_UP_SECONDS,
  connections,
  nextPort: () => port++,
  newBase,
  log,
  async after(target, running, round) {
    if (round === 0 && target.name === SQLITE) sdk = await sdkOverhead(running.url, running.token);
  },
});

const growth = new Samples<OpenLoopResult>();
for (let round = 0; round < (values['no-scale'] ? 0 : rounds); round++) {
  for (const engine of stores) {
    for (const layout of LAYOUTS) {
      for (const sample of await costGrowth(engine, layout, port++, newBase(), openSeconds)) {
        growth.add(`${engine}|${layout}|${sample.size}`, sample.result);
        log(
          `  growth ${engine}, ${layout}, ${sample.size} plants: get p50 ${sample.result.get.p50.toFixed(2)} ms, create p50 ${sample.result.create.p50.toFixed(2)} ms`,
        );
      }
      nextBase += 100_000_000;
    }
  }
}

const workersList = values.workers?.split(',').map(Number);
const profiles = values['cpu-prof'] ? resolve(process.env.INIT_CWD ?? process.cwd(), values['cpu-prof']) : undefined;
const workers = workersList
  ? await workersStage({
      list: workersList,
      rounds,
      seconds,
      warmUpSeconds: WARM_UP_SECONDS,
      connections,
      port,
      newBase,
      log,
      ...(profiles ? { cpuProfDir: profiles } : {}),
    })
  : undefined;
if (workers && profiles)
  for (const folder of readdirSync(profiles).sort())
    log(showSummary(folder, summariseProfiles(join(profiles, folder))));
port += rounds * (workersList?.length ?? 0) + 1;
const layers = values['no-layers'] ? undefined : await layerTableHere(undefined);

const figures: RunFigures = { groups, closed, growth, rounds, stores, ...(workers ? { workers } : {}) };
const goals = benchGoals(figures);
const minutes = (Date.now() - began) / 60_000;
const context = {
  command: `pnpm bench ${process.argv.slice(2).join(' ')}`.trim(),
  minutes,
  rounds,
  seconds,
  openSeconds,
  connections,
  warmUpSeconds: WARM_UP_SECONDS,
  loadAtStart,
  loadAtEnd: loadAverage(),
  names: list.map((target) => target.name),
  ...(layers ? { layers } : {}),
  ...(sdk ? { sdk } : {}),
};
mkdirSync(docs, { recursive: true });
writeFileSync(
  `${docs}benchmarks.md`,
  withKeptNotes(report(figures, goals, context), readIfPresent(`${docs}benchmarks.md`)),
);
writeFileSync(`${docs}benchmarks.svg`, chart(figures, context));
log(`\nwrote docs/benchmarks.md and docs/benchmarks.svg (${minutes.toFixed(1)} minutes)\n`);
for (const goal of goals) log(`${goal.label}: ${showGoalFigure(goal)} ${judgeGoal(goal)}`);
