// `pnpm bench`: throughput, latency and memory of the service next to the framework ceiling and its peers, measured
// side by side in one run (servers on core 0, wrk and the open-loop generator on core 1), written to
// docs/benchmarks.md with a chart (above the notes and earlier runs, which a run keeps: src/report-file.ts). Each of
// --rounds N rounds starts every target in turn (the order rotates by one per round, so targets interleave), runs its
// closed-loop wrk scenarios, each just after a warm-up on that scenario (src/warm-up.ts, unrecorded), then its
// open-loop latency runs at 50% and 80% of the capacity it just showed; then the hot-read A/B
// (plant-store against bare Fastify, both up at once, alternating; tools/bench/src/hot-read-ab.ts) and the cost-growth
// runs (1k, 100k, 1M stored plants). Tables give each figure's median over the rounds with its spread (min-max).
// Options: --seconds N (per closed-loop run, default 5), --open-seconds N (per open-loop run, 4), --connections N
// (50), --rounds N (3), --no-postgres, --no-scale, --port N (the first server's port, 3950), --soak N (seconds; then
// only the sustained-load test runs); the layer pricing (tools/bench/src/layers.ts) and the options that shorten a run
// are listed by `pnpm bench --help`.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { showSummary, summariseProfiles } from './src/cpu-profiles.js';
import { dataStage } from './src/data-stage.js';
import { deleteSeconds } from './src/delete-run.js';
import { type AbPair, abTable, hotReadAB } from './src/hot-read-ab.js';
import { layers as layerList, layerTable } from './src/layers.js';
import { type OpenLoopResult, openLoop, serverCoreBusy } from './src/open-loop.js';
import { readIfPresent, withKeptNotes } from './src/report-file.js';
import { costGrowth, LAYOUTS, SCALE_RATE, SIZES } from './src/scale.js';
import { sdkOverhead } from './src/sdk-overhead.js';
import {
  type Judged,
  judge,
  LAG_LIMIT_MS,
  LAG_SHARE_LIMIT,
  OVER_GOAL,
  SMALL_LAG,
  SPIN_MS,
  TICK_MS,
  UNDER_GOAL,
} from './src/send-schedule.js';
import { soak } from './src/soak.js';
import { Samples, type Spread, show, spread } from './src/stats.js';
import {
  METRICS_ON,
  PLANTS_PER_PRINCIPAL,
  PRINCIPALS,
  type Running,
  targets,
  WEBHOOK_ON,
  webhookDeliveries,
} from './src/targets.js';
import { cpuTrail, steadiness, WARM_UP_MAX_RUNS, WARM_UP_TOLERANCE, warmUntilSteady } from './src/warm-up.js';
import { ratioToOne } from './src/workers-plan.js';
import { workersRounds, workersStage, workersTable } from './src/workers-stage.js';
import { requireWrk, type Scenario, type WrkResult, wrkAgainst } from './src/wrk.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    'open-seconds': { type: 'string', default: '4' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
    'no-postgres': { type: 'boolean', default: false },
    'no-scale': { type: 'boolean', default: false },
    port: { type: 'string', default: '3950' },
    soak: { type: 'string' },
    data: { type: 'string' },
    help: { type: 'boolean', default: false },
    scenarios: { type: 'string', default: 'get,create,delete,mixed' },
    targets: { type: 'string' },
    'no-open': { type: 'boolean', default: false },
    layers: { type: 'string' },
    'no-layers': { type: 'boolean', default: false },
    'layer-rounds': { type: 'string' },
    'ab-pairs': { type: 'string', default: '3' },
    workers: { type: 'string' },
    'cpu-prof': { type: 'string' },
  },
});
const HELP = `Usage: pnpm bench [options]

Runs every target side by side (servers on core 0, wrk and the open-loop generator on core 1) and writes
docs/benchmarks.md and docs/benchmarks.svg. Needs Debian's wrk (apt-get install -y wrk).

  --rounds N          rounds; each starts every target in turn, the order rotating by one (default 3)
  --seconds N         seconds per closed-loop run (default 5; deletes half of it, or less where the create run's
                      plants would run out), each after a warm-up on its scenario (runs of 2 s until steady)
  --open-seconds N    seconds per open-loop run (default 4)
  --connections N     wrk connections (default 50)
  --scenarios LIST    closed-loop scenarios among get,create,delete,mixed (default all)
  --targets TEXT      only the targets whose name contains one of the comma-separated TEXTs (e.g. "SQLite (group,bare")
  --no-open           skip the open-loop latency runs
  --no-postgres       skip the PostgreSQL targets (also skipped when pg_isready fails)
  --no-scale          skip the cost-growth runs (1k, 100k, 1M plants)
  --workers LIST      also run the workers stage: \`serve --workers N\` (SQLite, mixed) for each N in LIST, e.g.
                      1,2 on 2 cores, 1,2,4,8 on 16; N on cores 0..N-1 and wrk on the rest where the machine has
                      N+1 cores, else unpinned with wrk on the last core (alone: with --targets none,
                      --no-scale and --no-layers)
  --cpu-prof DIR      the workers stage's servers write V8 CPU profiles into DIR (a folder per N and round,
                      warm-up included), and the stage prints each one's largest self times
  --ab-pairs N        pairs of each hot-read A/B each round: SQLite, and PostgreSQL when up, against bare
                      Fastify (default 3; 0 skips it)
  --layers all|LIST  only price the layers (all, or the comma-separated names), print the table, write nothing
  --no-layers         skip the layer pricing in a full run
  --layer-rounds N    rounds of the layer pricing (default: --rounds)
  --port N            the first server's port (default 3950)
  --soak N            only the sustained-load test, N seconds
  --data LIST         only the export and import stage (src/data-stage.ts), for each plant count in LIST
                      (\`pnpm bench:data\`: 100000,1000000)
  --help              this text

Layer pricing: the SQLite service on its default configuration (rate limit raised out of reach, metrics on an
ephemeral port) next to one variant per layer with that layer switched off (tracing: on), each started once and
seeded, measured in turn on the hot read and the mixed workload (in the first round, each after its warm-up on that
scenario). The figure is the server's CPU time per request;
a layer's price is the difference to the default. Switches are real configuration (LOG_LEVEL, METRICS_PORT,
RATE_LIMIT_MAX, MAX_EVENT_LOOP_DELAY_MS, OTEL_*) or bench layers (security-headers, request-ids, auth, validation,
serialization, webhook-worker; tools/bench/src/layer-switches.ts) that tools/bench/src/variant-server.ts turns into
buildApp's options: every variant runs through it; the service itself reads no bench switch.`;
if (values.help) {
  console.log(HELP);
  process.exit(0);
}
requireWrk();
const seconds = Number(values.seconds);
const openSeconds = Number(values['open-seconds']);
const rounds = Number(values.rounds);
const connections = Number(values.connections);
const docs = fileURLToPath(new URL('../../docs/', import.meta.url));
const began = Date.now();
// What else the machine was doing: its load average (1, 5, 15 min) when the run began and when it ended, and the
// busiest processes that were not the benchmark's own, for docs/benchmarks.md.
const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const loadAtStart = loadAverage();

if (values.soak) {
  const ok = await soak(Number(values.soak), connections);
  process.exit(ok ? 0 : 1);
}

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
  const ok = await dataStage(values.data.split(',').map(Number), postgresUp, Number(values.port));
  process.exit(ok ? 0 : 1);
}

const SQLITE = 'plant-store, SQLite (group commit)';
const PER_REQUEST = 'plant-store, SQLite (commit per request)';
const POSTGRES = 'plant-store, PostgreSQL';
const BARE = 'bare Fastify, from memory (ceiling)';
const EXPRESS = 'Express 5 + express-openapi-validator, SQLite';
const NAIVE = 'naive Fastify + pg, PostgreSQL (no cache)';
const LOADS = [0.5, 0.8] as const;
/** The open-loop goals: p99 at 80% of each target's own capacity, in ms (under it is met). */
const OPEN_P99_GOALS_MS = new Map([
  [SQLITE, 10],
  [POSTGRES, 20],
]);
const goalOf = (target: string, load: number, key: Judged) =>
  load === 0.8 && key === 'p99' ? OPEN_P99_GOALS_MS.get(target) : undefined;
/** Seconds of a measured delete run, unless the plants it deletes run out sooner (delete-run.ts). */
const DELETE_SECONDS = Math.max(2, Math.round(seconds / 2));
/** Seconds of each warm-up run (warm-up.ts repeats them until steady). */
const WARM_UP_SECONDS = 2;

/**
 * An open-loop run's latency in words, each percentile with the generator's lag beside it and refusals flagged, by
 * the rule the tables use (`goalMs`: a percentile's goal, where it has one).
 */
function describeOpenLoop(
  result: OpenLoopResult,
  kind: 'get' | 'create',
  goalMs: (key: Judged) => number | undefined = () => undefined,
): string {
  const latency = result[kind];
  const part = (name: string, key: Judged) => {
    const verdict = judge(latency[key], result.lag[key], goalMs(key));
    return `${name} ${latency[key].toFixed(2)} ms (generator lag ${result.lag[key].toFixed(2)})${verdict.valid ? '' : ' NOT JUDGED'}`;
  };
  return `${part('p50', 'p50')}, ${part('p99', 'p99')}, ${part('p99.9', 'p999')}, errors ${result.errors + result.non2xx}, server CPU ${result.serverCpuUsPerRequest.toFixed(1)} us/request, generator CPU ${(result.generatorCpu * 100).toFixed(0)}%, lag max ${result.lag.max.toFixed(2)} ms`;
}

interface JudgedFigure {
  figure?: Spread;
  refused: number;
  /** The figures of the rounds not judged, shown struck through beside the count. */
  refusedFigure?: Spread;
}
/**
 * A latency percentile over the rounds, from the runs whose figure stands (send-schedule.ts, judge: at or under its
 * goal, when it has one, or with the generator's lag a small share of it); the other rounds are counted and left out.
 */
function judged(runs: OpenLoopResult[], kind: 'get' | 'create', key: Judged, goalMs?: number): JudgedFigure {
  const valid = (r: OpenLoopResult) => judge(r[kind][key], r.lag[key], goalMs).valid;
  const figure = spread(runs.filter(valid).map((r) => r[kind][key]));
  const refusedFigure = spread(runs.filter((r) => !valid(r)).map((r) => r[kind][key]));
  return { ...(figure ? { figure } : {}), ...(refusedFigure ? { refusedFigure } : {}), refused: refusedFigure?.n ?? 0 };
}
const showJudged = ({ figure, refused, refusedFigure }: JudgedFigure) =>
  refused === 0
    ? show(figure, 2)
    : `${figure ? `${show(figure, 2)}; ` : ''}**${refused} not judged** (~~${show(refusedFigure, 2)}~~)`;
/** The generator's lag over the rounds: the median of each round's p50 and p99, and the largest lag of any send. */
const showLag = (runs: OpenLoopResult[]) =>
  `${spread(runs.map((r) => r.lag.p50))?.median.toFixed(2)} / ${spread(runs.map((r) => r.lag.p99))?.median.toFixed(2)} / ${Math.max(...runs.map((r) => r.lag.max)).toFixed(1)}`;

/** The ids a create warm-up made: base + 1 onwards, `runs` of them (a run's requests, with a gap between runs). */
interface WarmUpIds {
  base: number;
  runs: number;
}
/**
 * Warms a running target up on one scenario just before its measured run, by the rule every target and the hot-read
 * A/B share (warm-up.ts: runs of WARM_UP_SECONDS until two in a row agree on CPU per request, near the lowest so
 * far, capped), unrecorded.
 * Measured cold, the mixed workload paid for filling plant-store's page cache (40 principals x 91 page sizes) inside
 * its figure, which a peer with no cache never does. The create warm-up's runs take consecutive ids (each run starts
 * past the last one's answered requests and one in flight per connection); the delete warm-up deletes them the same way, in runs
 * half as long (as the measured delete is) and no more of them than there were create runs, so the measured delete
 * still finds every plant of the measured create run; with no create warm-up before them they are measured unwarmed.
 */
async function warmUpOn(
  running: Running,
  scenario: Scenario,
  createWarmUp: WarmUpIds | undefined,
): Promise<{ ids?: WarmUpIds; seconds: number; rate: number; summary: string }> {
  if (scenario === 'delete' && !createWarmUp)
    return { seconds: 0, rate: Number.NaN, summary: 'none (no create warm-up to delete)' };
  const first = scenario === 'delete' ? createWarmUp!.base : newBase();
  let next = first;
  const runSeconds = scenario === 'delete' ? WARM_UP_SECONDS / 2 : WARM_UP_SECONDS;
  const warm = await warmUntilSteady(
    async () => {
      const result = await wrkAgainst(running, {
        scenario,
        base: scenario === 'create' || scenario === 'delete' ? next : newBase(),
        seconds: runSeconds,
        connections,
      });
      // Past the answered requests and one more in flight per connection, which may have been sent.
      next += result.requests + connections;
      return result;
    },
    { maxRuns: scenario === 'delete' ? Math.min(WARM_UP_MAX_RUNS, createWarmUp!.runs) : WARM_UP_MAX_RUNS },
  );
  return {
    ...(scenario === 'create' ? { ids: { base: first, runs: warm.runs.length } } : {}),
    seconds: warm.runs.length * runSeconds,
    rate: warm.runs.at(-1)!.requestsPerSec,
    summary: `${warm.runs.length} runs of ${runSeconds} s, ${cpuTrail(warm)}, non-2xx ${warm.runs.reduce((sum, r) => sum + r.non2xx, 0)}${steadiness(warm)}`,
  };
}
/** Seconds spent warming up on the scenarios, for the report: what the rule costs the run. */
let warmUpSeconds = 0;

const closed = new Samples<WrkResult>();
const open = new Samples<OpenLoopResult & { rate: number }>();
const growth = new Samples<OpenLoopResult>();
const abPairs: AbPair[] = [];
/** The same A/B with the PostgreSQL target as A: its hot read with the read barrier (read-your-writes) in force. */
const abPairsPostgres: AbPair[] = [];
const abPairsPerRound = Number(values['ab-pairs']);
let sdk: Awaited<ReturnType<typeof sdkOverhead>> | undefined;
let nextBase = 1_000_000;
const newBase = () => (nextBase += 10_000_000);
let port = Number(values.port);

const wanted = values.targets?.split(',').map((text) => text.trim());
const chosenScenarios = new Set(values.scenarios.split(',').map((text) => text.trim()));
const list = targets(postgresUp)
  .filter((target) => !wanted || wanted.some((text) => target.name.includes(text)))
  .map((target) => ({ ...target, scenarios: target.scenarios.filter((scenario) => chosenScenarios.has(scenario)) }))
  .filter((target) => target.scenarios.length > 0);

/** The layer table with this run's settings; the ports it used are not used again. */
async function layerTableHere(pick: string[] | undefined, layerRounds: number): Promise<string> {
  const { table, ports } = await layerTable({
    pick,
    rounds: layerRounds,
    seconds,
    warmUpSeconds: WARM_UP_SECONDS,
    connections,
    port,
    log: (line) => console.log(line),
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
  console.log(`\n${await layerTableHere(pick, Number(values['layer-rounds'] ?? rounds))}`);
  process.exit(0);
}
for (let round = 0; round < rounds; round++) {
  const order = [...list.slice(round % list.length), ...list.slice(0, round % list.length)];
  for (const target of order) {
    const running = await target.start(port++);
    console.log(`round ${round + 1}/${rounds}: ${target.name} listening at ${running.url}, pid ${running.pid}`);
    try {
      let createBase = 0;
      let created = 0;
      let createWarmUp: WarmUpIds | undefined;
      for (const scenario of target.scenarios) {
        const warm = await warmUpOn(running, scenario, createWarmUp);
        if (scenario === 'create') createWarmUp = warm.ids;
        warmUpSeconds += warm.seconds;
        console.log(`  ${scenario} warm-up: ${warm.summary}`);
        // Deletes remove what this round's create run made; the create run always precedes them.
        const base = scenario === 'delete' ? createBase : newBase();
        if (scenario === 'create') createBase = base;
        const result = await wrkAgainst(running, {
          scenario,
          base,
          seconds: scenario === 'delete' ? deleteSeconds(DELETE_SECONDS, created, warm.rate) : seconds,
          connections,
        });
        if (scenario === 'create') created = result.requests - result.non2xx;
        closed.add(`${target.name}|${scenario}`, result);
        console.log(
          `  ${scenario}: ${result.requestsPerSec.toFixed(0)} req/s, ${result.cpuUsPerRequest.toFixed(1)} us CPU/request, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, non-2xx ${result.non2xx}, RSS ${result.maxRssMb} MB`,
        );
      }
      for (const kind of values['no-open'] ? [] : (['get', 'create'] as const)) {
        const capacity = closed.get(`${target.name}|${kind}`).at(-1)?.requestsPerSec;
        if (capacity === undefined) continue;
        for (const load of LOADS) {
          const rate = Math.round(capacity * load);
          const result = await openLoop({
            url: running.url,
            rate,
            seconds: openSeconds,
            kind,
            tokens: [running.token],
            base: newBase(),
            serverPid: running.pid,
          });
          open.add(`${target.name}|${kind}|${load}`, { ...result, rate });
          console.log(
            `  open loop ${kind} at ${rate}/s (${load * 100}%): ${describeOpenLoop(result, kind, (key) => goalOf(target.name, load, key))}`,
          );
        }
      }
      if (round === 0 && target.name === SQLITE) sdk = await sdkOverhead(running.url, running.token);
    } finally {
      await running.stop();
    }
  }
  const abBare = list.find((t) => t.name === BARE);
  for (const [name, into] of [
    [SQLITE, abPairs],
    [POSTGRES, abPairsPostgres],
  ] as const) {
    const abPlantStore = list.find((t) => t.name === name);
    if (!(abPairsPerRound > 0 && abPlantStore && abBare)) continue;
    console.log(`round ${round + 1}/${rounds}: hot read A/B, ${name} against ${BARE}`);
    const pairs = await hotReadAB({
      a: abPlantStore,
      b: abBare,
      pairs: abPairsPerRound,
      seconds,
      warmUpSeconds: WARM_UP_SECONDS,
      connections,
      port,
      log: (line) => console.log(line),
    });
    into.push(...pairs);
    port += 2;
  }
  if (!values['no-scale']) {
    for (const engine of postgresUp ? (['SQLite', 'PostgreSQL'] as const) : (['SQLite'] as const)) {
      for (const layout of LAYOUTS) {
        for (const sample of await costGrowth(engine, layout, port++, newBase(), openSeconds)) {
          growth.add(`${engine}|${layout}|${sample.size}`, sample.result);
          console.log(
            `  growth ${engine}, ${layout}, ${sample.size} plants: get ${describeOpenLoop(sample.result, 'get')}; create ${describeOpenLoop(sample.result, 'create')}`,
          );
        }
        nextBase += 100_000_000;
      }
    }
  }
}
const workersList = values.workers?.split(',').map(Number);
const workers = workersList
  ? await workersStage({
      list: workersList,
      rounds,
      seconds,
      warmUpSeconds: WARM_UP_SECONDS,
      connections,
      port,
      newBase,
      log: (line) => console.log(line),
      ...(values['cpu-prof'] ? { cpuProfDir: resolve(process.env.INIT_CWD ?? process.cwd(), values['cpu-prof']) } : {}),
    })
  : undefined;
if (workers && values['cpu-prof']) {
  const root = resolve(process.env.INIT_CWD ?? process.cwd(), values['cpu-prof']);
  for (const folder of readdirSync(root).sort())
    console.log(showSummary(folder, summariseProfiles(join(root, folder))));
}
port += rounds * (workersList?.length ?? 0) + 1;
const layers = values['no-layers']
  ? undefined
  : await layerTableHere(undefined, Number(values['layer-rounds'] ?? rounds));
const minutes = (Date.now() - began) / 60_000;
const loadAtEnd = loadAverage();

// ---- figures -------------------------------------------------------------------------------------------------
const rps = (target: string, scenario: Scenario) => closed.get(`${target}|${scenario}`).map((r) => r.requestsPerSec);
const p99 = (target: string, scenario: Scenario) => closed.get(`${target}|${scenario}`).map((r) => r.p99Ms);
/** The per-round ratios a/b (rounds paired), summarised. */
function ratio(a: number[], b: number[]): Spread | undefined {
  return spread(a.slice(0, b.length).map((value, i) => value / b[i]!));
}
/** An open-loop p99 at 80% over the rounds (every round) with the median of the generator's lag at p99 beside it. */
const openP99 = (target: string, kind: 'get' | 'create') => {
  const runs = open.get(`${target}|${kind}|0.8`);
  return { figure: spread(runs.map((r) => r[kind].p99)), lag: spread(runs.map((r) => r.lag.p99)) };
};
/**
 * An open-loop goal's verdict, by the rule of one run (send-schedule.ts, judge) applied to the medians over the
 * rounds, naming the rule that applied: met at or under the goal whatever the lag; over it, missed only while the lag
 * is a small share of the figure, otherwise not judged.
 */
function openVerdict(target: string, kind: 'get' | 'create'): string {
  const { figure, lag } = openP99(target, kind);
  const goal = goalOf(target, 0.8, 'p99');
  if (!figure || !lag || goal === undefined) return '';
  const verdict = judge(figure.median, lag.median, goal);
  if (!verdict.valid) return `not judged (generator lag): ${verdict.reason}`;
  return `${verdict.met ? 'met' : '**missed**'} (${verdict.rule})`;
}
/** A figure that stood (NaN when the generator's lag refused it, so the ratio of its round is left out). */
const standing = (r: OpenLoopResult, kind: 'get' | 'create', p: 'p50' | 'p99') =>
  r[kind].verdicts[p].valid ? r[kind][p] : Number.NaN;
const growthRatio = (engine: string, layout: string, kind: 'get' | 'create', p: 'p50' | 'p99') =>
  ratio(
    growth.get(`${engine}|${layout}|1000000`).map((r) => standing(r, kind, p)),
    growth.get(`${engine}|${layout}|1000`).map((r) => standing(r, kind, p)),
  );
const plantStoreRss = [SQLITE, PER_REQUEST, POSTGRES].flatMap((target) =>
  closed
    .keys()
    .filter((key) => key.startsWith(`${target}|`))
    .flatMap((key) => closed.get(key).map((r) => r.maxRssMb)),
);
const allGrowthRss = growth.keys().flatMap((key) => growth.get(key).map((r) => r.maxRssMb));
const allOpenRss = open
  .keys()
  .filter((key) => [SQLITE, PER_REQUEST, POSTGRES].some((target) => key.startsWith(`${target}|`)))
  .flatMap((key) => open.get(key).map((r) => r.maxRssMb));
const peakRss = Math.max(...plantStoreRss, ...allGrowthRss, ...allOpenRss);

/**
 * The workers goals: where N workers have N cores to themselves, 2 workers >= 1.6x one and 8 >= 5x (the median of the
 * per-round ratios); where they share the machine's cores with wrk, N workers never serve less than one (every round).
 */
function workersChecks(): Check[] {
  if (!workers) return [];
  return workers.placements
    .filter((p) => p.workers > 1)
    .flatMap((p): Check[] => {
      const figure = ratioToOne(workersRounds(workers, rounds), p.workers);
      if (p.serverCores === undefined) {
        const label = `mixed: serve --workers ${p.workers} vs 1, sharing ${workers!.cores} cores with wrk (>= 1x in every round)`;
        return [[label, figure, 2, null, figure ? (figure.min >= 1 ? 'met' : '**missed**') : '']];
      }
      const goal = { 2: 1.6, 8: 5 }[p.workers];
      const label = `mixed: serve --workers ${p.workers} vs 1, on cores ${p.serverCores} (${goal ? `>= ${goal}x` : 'not a target'})`;
      return [[label, figure, 2, goal ? (m) => m >= goal : null]];
    });
}
/**
 * A target: its figure, the decimals, and the test; an open-loop goal instead gives its figure with the generator's
 * lag and its verdict, which weighs the lag (openVerdict).
 */
type Check = [
  label: string,
  figure: Spread | undefined | ReturnType<typeof openP99>,
  digits: number,
  pass: ((median: number) => boolean) | null,
  verdict?: string,
];
const isOpen = (figure: Check[1]): figure is ReturnType<typeof openP99> => figure !== undefined && 'lag' in figure;
const showCheck = (check: Check) =>
  isOpen(check[1])
    ? `${show(check[1].figure, 2)} (generator lag p99 ${show(check[1].lag, 2)})`
    : show(check[1], check[2]);
const checks: Check[] = [
  [
    'hot read A/B: getPlants vs bare Fastify ceiling, req/s (>= 0.9x)',
    spread(abPairs.map((pair) => pair.a.requestsPerSec / pair.b.requestsPerSec)),
    2,
    (m) => m >= 0.9,
  ],
  [
    'hot read A/B: getPlants p99 vs bare Fastify p99 (<= 1.5x)',
    spread(abPairs.map((pair) => pair.a.p99Ms / pair.b.p99Ms)),
    2,
    (m) => m <= 1.5,
  ],
  [
    'hot read A/B: PostgreSQL getPlants, read barrier in force, vs bare Fastify ceiling, req/s (>= 0.8x)',
    spread(abPairsPostgres.map((pair) => pair.a.requestsPerSec / pair.b.requestsPerSec)),
    2,
    (m) => m >= 0.8,
  ],
  [
    'hot read A/B: PostgreSQL getPlants p99 vs bare Fastify p99 (not a target)',
    spread(abPairsPostgres.map((pair) => pair.a.p99Ms / pair.b.p99Ms)),
    2,
    null,
  ],
  [
    'getPlants vs bare Fastify from the closed-loop table, minutes apart (the old method; not a target)',
    ratio(rps(SQLITE, 'get'), rps(BARE, 'get')),
    2,
    null,
  ],
  [
    'getPlants, a cached page, vs Express peer, which queries SQLite on every read (>= 3x)',
    ratio(rps(SQLITE, 'get'), rps(EXPRESS, 'get')),
    2,
    (m) => m >= 3,
  ],
  [
    'createPlant group commit vs commit per request (>= 4x)',
    ratio(rps(SQLITE, 'create'), rps(PER_REQUEST, 'create')),
    2,
    (m) => m >= 4,
  ],
  ['createPlant vs Express peer (>= 3x)', ratio(rps(SQLITE, 'create'), rps(EXPRESS, 'create')), 2, (m) => m >= 3],
  ['getPlants PostgreSQL vs SQLite (>= 0.7x)', ratio(rps(POSTGRES, 'get'), rps(SQLITE, 'get')), 2, (m) => m >= 0.7],
  [
    'createPlant PostgreSQL vs SQLite (>= 0.5x)',
    ratio(rps(POSTGRES, 'create'), rps(SQLITE, 'create')),
    2,
    (m) => m >= 0.5,
  ],
  ['mixed: SQLite vs Express peer (>= 3x)', ratio(rps(SQLITE, 'mixed'), rps(EXPRESS, 'mixed')), 2, (m) => m >= 3],
  [
    'mixed: SQLite p99 vs Express peer p99 (<= 0.5x)',
    ratio(p99(SQLITE, 'mixed'), p99(EXPRESS, 'mixed')),
    2,
    (m) => m <= 0.5,
  ],
  ['mixed: PostgreSQL vs SQLite (>= 0.6x)', ratio(rps(POSTGRES, 'mixed'), rps(SQLITE, 'mixed')), 2, (m) => m >= 0.6],
  [
    'mixed: PostgreSQL vs naive Fastify + pg (>= 2x)',
    ratio(rps(POSTGRES, 'mixed'), rps(NAIVE, 'mixed')),
    2,
    (m) => m >= 2,
  ],
  [
    'mixed: SQLite metrics on vs off (>= 0.95x)',
    ratio(rps(METRICS_ON, 'mixed'), rps(SQLITE, 'mixed')),
    2,
    (m) => m >= 0.95,
  ],
  [
    'mixed: SQLite with one webhook subscription vs none (>= 0.95x)',
    ratio(rps(WEBHOOK_ON, 'mixed'), rps(SQLITE, 'mixed')),
    2,
    (m) => m >= 0.95,
  ],
  [
    `open loop 80%: SQLite getPlants p99 ms (< ${OPEN_P99_GOALS_MS.get(SQLITE)})`,
    openP99(SQLITE, 'get'),
    2,
    null,
    openVerdict(SQLITE, 'get'),
  ],
  [
    `open loop 80%: SQLite createPlant p99 ms (< ${OPEN_P99_GOALS_MS.get(SQLITE)})`,
    openP99(SQLITE, 'create'),
    2,
    null,
    openVerdict(SQLITE, 'create'),
  ],
  [
    `open loop 80%: PostgreSQL getPlants p99 ms (< ${OPEN_P99_GOALS_MS.get(POSTGRES)})`,
    openP99(POSTGRES, 'get'),
    2,
    null,
    openVerdict(POSTGRES, 'get'),
  ],
  [
    `open loop 80%: PostgreSQL createPlant p99 ms (< ${OPEN_P99_GOALS_MS.get(POSTGRES)})`,
    openP99(POSTGRES, 'create'),
    2,
    null,
    openVerdict(POSTGRES, 'create'),
  ],
  // 175: the 16 MB semi-space serve sets costs about 22 MB over the 2 MB it set before (docs/benchmarks.md).
  ['peak RSS of plant-store, any scenario, MB (< 175)', spread([peakRss]), 0, (m) => m < 175],
  ...workersChecks(),
  ...LAYOUTS.flatMap((layout) =>
    (postgresUp ? ['SQLite', 'PostgreSQL'] : ['SQLite']).flatMap((engine) =>
      (['get', 'create'] as const).map(
        (kind): Check => [
          `${engine}, ${layout}: ${kind} p50 at 1M vs 1k plants (<= 1.5x)`,
          growthRatio(engine, layout, kind, 'p50'),
          2,
          (m) => m <= 1.5,
        ],
      ),
    ),
  ),
];
const verdict = (check: Check) => {
  if (check[4] !== undefined || isOpen(check[1])) return check[4] ?? '';
  const figure = check[1];
  return !figure || !check[3] ? '' : check[3](figure.median) ? 'met' : '**missed**';
};

// ---- report --------------------------------------------------------------------------------------------------
const scenarios: Scenario[] = ['get', 'create', 'delete', 'mixed'];
const names = list.map((target) => target.name);
function chart(): string {
  const colours = ['#2f7d32', '#9ccc65', '#1565c0', '#9e9e9e', '#e65100', '#6a1b9a', '#00838f', '#c62828'];
  const max = Math.max(...closed.keys().flatMap((key) => closed.get(key).map((r) => r.requestsPerSec)));
  const barWidth = 22;
  const groupWidth = names.length * barWidth + 40;
  const height = 280;
  const width = 80 + scenarios.length * groupWidth + 380;
  const y = (value: number) => height - 30 - (value / max) * (height - 60);
  const bars = scenarios.flatMap((scenario, g) =>
    names.map((name, i) => {
      const figure = spread(rps(name, scenario));
      if (!figure) return '';
      const x = 80 + g * groupWidth + i * barWidth;
      const middle = x + (barWidth - 4) / 2;
      return `<rect x="${x}" y="${y(figure.median)}" width="${barWidth - 4}" height="${height - 30 - y(figure.median)}" fill="${colours[i % colours.length]}"><title>${name} ${scenario}: ${show(figure)} req/s</title></rect>
<line x1="${middle}" x2="${middle}" y1="${y(figure.min)}" y2="${y(figure.max)}" stroke="#000"/>`;
    }),
  );
  const labels = scenarios.map(
    (scenario, g) =>
      `<text x="${80 + g * groupWidth + (names.length * barWidth) / 2}" y="${height - 10}" text-anchor="middle">${scenario}</text>`,
  );
  const legend = names.map(
    (name, i) =>
      `<rect x="${width - 370}" y="${20 + i * 22}" width="14" height="14" fill="${colours[i % colours.length]}"/><text x="${width - 350}" y="${32 + i * 22}">${name}</text>`,
  );
  const axis = [0, 0.5, 1].map((f) => `<text x="70" y="${y(f * max)}" text-anchor="end">${Math.round(f * max)}</text>`);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12">
<text x="80" y="14">requests/s, median of ${rounds} rounds (line: min-max), ${connections} connections, higher is better</text>
${axis.join('\n')}
${bars.join('\n')}
${labels.join('\n')}
${legend.join('\n')}
</svg>
`;
}

const closedRows = names.flatMap((name) =>
  scenarios
    .filter((scenario) => closed.get(`${name}|${scenario}`).length > 0)
    .map((scenario) => {
      const runs = closed.get(`${name}|${scenario}`);
      return `| ${name} | ${scenario} | ${show(spread(runs.map((r) => r.requestsPerSec)))} | ${show(spread(runs.map((r) => r.cpuUsPerRequest)), 1)} | ${show(spread(runs.map((r) => r.p50Ms)), 2)} | ${show(spread(runs.map((r) => r.p99Ms)), 2)} | ${runs.reduce((sum, r) => sum + r.non2xx, 0)} | ${Math.max(...runs.map((r) => r.maxRssMb))} |`;
    }),
);
const openRows = names.flatMap((name) =>
  (['get', 'create'] as const).flatMap((kind) =>
    LOADS.filter((load) => open.get(`${name}|${kind}|${load}`).length > 0).map((load) => {
      const runs = open.get(`${name}|${kind}|${load}`);
      const closedCpu = spread(closed.get(`${name}|${kind}`).map((r) => r.cpuUsPerRequest));
      const busy = spread(runs.map(serverCoreBusy));
      return `| ${name} | ${kind} | ${load * 100}% | ${show(spread(runs.map((r) => r.rate)))} | ${showJudged(judged(runs, kind, 'p50'))} | ${showJudged(judged(runs, kind, 'p99', goalOf(name, load, 'p99')))} | ${showJudged(judged(runs, kind, 'p999'))} | ${show(spread(runs.map((r) => r.serverCpuUsPerRequest)), 1)} (${closedCpu?.median.toFixed(1) ?? 'n/a'}) | ${busy?.median.toFixed(0)}% | ${showLag(runs)} | ${runs.reduce((sum, r) => sum + r.errors + r.non2xx, 0)} | ${Math.max(...runs.map((r) => Math.round(r.generatorCpu * 100)))}% | ${Math.max(...runs.map((r) => r.maxRssMb))} |`;
    }),
  ),
);
const growthRows = growth.keys().map((key) => {
  const [engine, layout, size] = key.split('|');
  const runs = growth.get(key);
  return `| ${engine} | ${layout} | ${Number(size).toLocaleString('en')} | ${showJudged(judged(runs, 'get', 'p50'))} | ${showJudged(judged(runs, 'get', 'p99'))} | ${showJudged(judged(runs, 'create', 'p50'))} | ${showJudged(judged(runs, 'create', 'p99'))} | ${showLag(runs)} | ${runs.reduce((sum, r) => sum + r.errors + r.non2xx, 0)} | ${Math.max(...runs.map((r) => r.maxRssMb))} |`;
});

const command = `pnpm bench ${process.argv.slice(2).join(' ')}`.trim();
const report = `# Benchmarks

Made by \`${command}\` on ${new Date().toISOString().slice(0, 10)} in ${minutes.toFixed(1)} minutes: ${rounds} round${rounds === 1 ? '' : 's'}, Node
${process.version}, ${execFileSync('nproc').toString().trim()} cores (${execFileSync('uname', ['-sr']).toString().trim()}); every server pinned to core 0 with \`taskset\`, \`wrk\` and the
open-loop generator pinned to core 1. Each round starts every target in turn (the order rotates by one target per
round) on a fresh database, seeds ${PRINCIPALS} principals with ${PLANTS_PER_PRINCIPAL} plants each over HTTP, runs the closed-loop
scenarios, each just after a warm-up on that same scenario (not recorded; one rule for every target, \`tools/bench/src/warm-up.ts\`: runs of
${WARM_UP_SECONDS} s until two in a row agree on the server's CPU per request within ${WARM_UP_TOLERANCE * 100}%, the last as near the lowest run so far, at most ${WARM_UP_MAX_RUNS}, so a cache is filled and
code compiled before the figure, not inside it; a delete warm-up, in runs of ${WARM_UP_SECONDS / 2} s, deletes the plants the create warm-up made,
in order, leaving the measured create run's plants to the measured delete run), then the open-loop runs at 50% and 80% of the capacity that
target just showed (after its closed-loop runs of the same operation, so warm); the targets' warm-ups took ${(warmUpSeconds / 60).toFixed(1)} of the run's ${minutes.toFixed(1)} minutes. The hot-read A/B
(both servers up at once, alternating) and the cost-growth runs follow. Every figure is the **median over the rounds, with the spread (min-max) in brackets**; a ratio is the median
of the per-round ratios. plant-store ran with \`LOG_LEVEL=warn\`, \`RATE_LIMIT_MAX=0\` and \`METRICS_PORT=off\`, except two
variants of the SQLite target that run the mixed workload only, to price a feature: one with metrics on (their own
listener on a free port), and one with a webhook subscription (added with \`plant-store webhook add\` after seeding, to
a receiver in the bench process that answers 204 at once; its worker delivers while the variant runs, at most
\`WEBHOOK_PER_SUBSCRIPTION\` (4) attempts in flight, each settled in a batch every 20 ms, so creates arriving faster
than that wait in the outbox: the receiver got ${webhookDeliveries.length ? webhookDeliveries.join(', ') : 'no'} deliveries
in the rounds, while a tenth of the variant's requests (its warm-up's and its mixed run's) were creates, each one
event). The machine is shared and noisy: compare ratios within one run, not absolute figures across runs. Load average (1, 5, 15
min) when the run began: ${loadAtStart}; when it ended: ${loadAtEnd} (the benchmark itself keeps about 2 busy).

## Closed loop (capacity)

wrk, ${connections} connections, ${seconds} s per run (deletes ${DELETE_SECONDS} s, or the whole seconds the create run's plants last at the rate of the delete warm-up's last run, with a tenth to spare: \`tools/bench/src/delete-run.ts\`). **get** reads a 100-plant page as one principal (the
cache-hit path); **create** inserts a new id per request with the same durability everywhere (SQLite's log fsynced
before each answer: plant-store commits with \`synchronous=NORMAL\` and fsyncs the log off the event loop, the commit
per request variant and the Express peer run \`synchronous=FULL\`; PostgreSQL's default \`fsync\`); **delete** removes the plants that round's create run made;
**mixed** spreads requests over the ${PRINCIPALS} principals, 90% \`GET /plants?limit=R\` with R random in 10..100 and 10%
creates, interleaved, so writes keep invalidating cached pages and reads meet the cache-miss path. Peers: Express 5
+ express-openapi-validator on better-sqlite3 (commit per request), and a naive Fastify + \`pg\` service (no cache,
one query per request); bare Fastify answers a page from memory (the framework's ceiling).

![requests per second](benchmarks.svg)

| server | operation | req/s | server CPU us/request | p50 ms | p99 ms | non-2xx (all rounds) | max RSS MB |
|---|---|---:|---:|---:|---:|---:|---:|
${closedRows.join('\n')}

## Hot read A/B

${
  abPairs.length + abPairsPostgres.length === 0
    ? 'Not run (`--ab-pairs 0`, or a run without both targets).'
    : `Each plant-store target present (${SQLITE}, then ${POSTGRES}, whose every cached answer waits for the read barrier's check) against ${BARE}, both started at once (core 0) and warmed up alike (runs of ${WARM_UP_SECONDS} s of wrk until two in a row agree on CPU per request within ${WARM_UP_TOLERANCE * 100}%, the last as near the lowest so far, at most ${WARM_UP_MAX_RUNS}: \`tools/bench/src/warm-up.ts\`), then ${abPairsPerRound} pairs of wrk runs per round (core 1, \`-t1 -c${connections}\`, ${seconds} s, \`GET /plants?limit=100\` as one principal: the same 100 plants, the same response schema), alternating between the two, the one that goes first swapping every pair; ${abPairs.length + abPairsPostgres.length} pairs in all. The ratio is taken per pair and summarised as the median (min-max) over the pairs.

${[abTable(SQLITE, BARE, abPairs), abTable(POSTGRES, BARE, abPairsPostgres)].filter((table) => table !== '').join('\n\n')}`
}

## Open loop (latency at fixed rates)

A generator of our own (\`tools/bench/src/open-loop-generator.ts\`, 64 connections, ${openSeconds} s per run) keeps wrk2's
schedule: send i is due at start + i / rate whatever the answers do, and each latency counts from that *intended*
time, so a stall is charged to every request it delayed (no coordinated omission). Its alarm is a worker thread that
sleeps in the kernel (1 ns timer slack) until a send is due and wakes the generator's event loop through shared memory,
no message per send; it rings at most once per ${TICK_MS} ms, every send due by then leaving in that turn, and waits out
the last ${SPIN_MS} ms awake only for sends 1 ms or more apart. Sends that fall due while the loop is awake for answers
leave then, without the alarm; each send is charged its own lag either way (a bare \`setTimeout\` fires up to about 1 ms
late, which once put a 1.2-1.4 ms floor under every p50). Requests are built before the run and answers are read at
byte level, so the generator keeps up with 80% of a 20k req/s server on its one core. Rates are 50% and 80% of that round's closed-loop figure for the same target and operation
(each target's own capacity), one principal. Beside every figure stands the generator's own lag (how late its sends
left their intended times: p50 / p99 of the run, and the worst send) and its CPU time over wall time while sending
(the alarm thread's included). Latency counts from the intended send time, so the lag is inside every figure and only
makes it larger. Hence the rule (\`judge\` in \`tools/bench/src/send-schedule.ts\`): a figure at or under its goal (p99 at 80%:
${[...OPEN_P99_GOALS_MS].map(([target, goal]) => `${goal} ms for ${target}`).join(', ')}) is met whatever the lag (${UNDER_GOAL}); a figure over its goal
is missed only while the generator's lag at the same percentile is at most ${LAG_SHARE_LIMIT * 100}% of it (${OVER_GOAL}), for a larger lag could be
what put it over; a figure without a goal stands only while that lag is at most ${LAG_SHARE_LIMIT * 100}% of it and at most ${LAG_LIMIT_MS} ms (${SMALL_LAG});
otherwise it is **not judged**: that round is left out of
the cell's median and counted there, its figure struck through. The targets table judges each goal by the same rule on the
medians over the rounds (the figure's and the lag's) and names the rule that applied. Beside the latencies stand
the server's CPU time per request in the run (every thread, from /proc, from the generator's start to its end), with
the closed loop's for the same target and operation in brackets, and the share of the server's core that comes to (CPU
per request times the rate achieved). Requests that arrive one or two at a time cost more each than the closed loop's
bursts of about fifty: every arrival wakes the server and every answer wakes the generator, on its own. Where that share
nears 100% the target is at what it sustains from a stream, whatever its closed-loop figure, and its p99 is a queue's
(\`tools/bench/src/open-loop-floor.ts\` measures the same for a server that does nothing but answer).

| server | operation | load | rate req/s | p50 ms | p99 ms | p99.9 ms | server CPU us/request (closed loop's) | server core busy | generator lag p50 / p99 / max ms | errors + non-2xx | generator CPU (max) | max RSS MB |
|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
${openRows.join('\n')}

## Writes across workers

${workersTable(workers, { rounds, seconds, warmUpSeconds: WARM_UP_SECONDS })}

## What each layer costs

${
  layers
    ? `The SQLite service on its default configuration next to the same service with one layer switched off (tracing: on), every variant started once and seeded, then measured in turn (${Number(values['layer-rounds'] ?? rounds)} rounds, the order rotating; in the first, each variant's run of a scenario follows its warm-up on that scenario by the rule every target shares) with wrk (${connections} connections, ${seconds} s) on the hot read and the mixed workload. The figure is the server's CPU time per request from /proc (every thread), which a shared machine shakes far less than requests per second; a layer's price is the default's figure minus the variant's (for tracing, the other way round). Every variant, the default included, is started by \`tools/bench/src/variant-server.ts\`, which switches a bench layer off through buildApp's options (\`tools/bench/src/layer-switches.ts\`; the service reads no bench switch). \`pnpm bench --layers\` runs this table alone.

${layers}`
    : 'Not run (`--no-layers`).'
}

## How cost grows with the data

${values['no-scale'] ? 'Not run (`--no-scale`).' : `The service at a fixed ${SCALE_RATE} req/s open loop, ${openSeconds} s per step after a 1 s warm-up, mixed load (90% reads of 10..100 plants, 10% creates) for one principal, with ${SIZES.map((s) => s.toLocaleString('en')).join(', ')} plants stored: all owned by that principal, or spread over 1000 principals (the measured one owns a thousandth). Plants are inserted in bulk with SQL between steps and the server restarts after each insert (empty caches).`}

| engine | layout | stored plants | get p50 ms | get p99 ms | create p50 ms | create p99 ms | generator lag p50 / p99 / max ms | errors + non-2xx | max RSS MB |
|---|---|---:|---:|---:|---:|---:|---:|---:|---:|
${growthRows.join('\n')}

## Targets

| comparison (target) | median (min-max over rounds) | |
|---|---:|---|
${checks.map((check) => `| ${check[0]} | ${showCheck(check)} | ${verdict(check)} |`).join('\n')}

## SDK overhead

${sdk ? `Measured in round 1 only: sequential \`plants.list({ limit: 10 })\` calls against the SQLite service, ${sdk.calls} each way: bare \`fetch\` + \`json()\` ${sdk.fetchUs.toFixed(0)} us per call, the SDK ${sdk.sdkUs.toFixed(0)} us per call: ${(sdk.sdkUs - sdk.fetchUs).toFixed(0)} us (${(((sdk.sdkUs - sdk.fetchUs) / sdk.fetchUs) * 100).toFixed(0)}%) of overhead per call.` : 'not measured'}
`;
mkdirSync(docs, { recursive: true });
writeFileSync(`${docs}benchmarks.md`, withKeptNotes(report, readIfPresent(`${docs}benchmarks.md`)));
writeFileSync(`${docs}benchmarks.svg`, chart());
console.log(`\nwrote docs/benchmarks.md and docs/benchmarks.svg (${minutes.toFixed(1)} minutes)\n`);
console.log(checks.map((check) => `${check[0]}: ${showCheck(check)} ${verdict(check)}`).join('\n'));
