// docs/benchmarks.md's tables as one `pnpm bench` run writes them (above the kept notes: report-file.ts), and the
// chart beside them. Every throughput figure has the server's peak RSS beside it; a run whose warm-up did not end
// steady is marked "not steady" and left out of the ratios.
import { execFileSync } from 'node:child_process';
import type { RunFigures } from './bench-goals.js';
import { type Goal, goalsTable } from './goals.js';
import { LOADS } from './headline.js';
import { closedTable, openTable } from './headline-tables.js';
import { SCALE_RATE, SIZES } from './scale.js';
import { show, spread } from './stats.js';
import { WARM_UP_MAX_RUNS, WARM_UP_TOLERANCE } from './warm-up.js';
import { workersTable } from './workers-stage.js';
import type { Scenario } from './wrk.js';

export interface ReportContext {
  command: string;
  minutes: number;
  rounds: number;
  seconds: number;
  openSeconds: number;
  connections: number;
  warmUpSeconds: number;
  loadAtStart: string;
  loadAtEnd: string;
  names: string[];
  layers?: string;
  sdk?: { calls: number; fetchUs: number; sdkUs: number };
}

const SCENARIOS: Scenario[] = ['get', 'create', 'delete', 'mixed'];

function closedStageRows(figures: RunFigures, names: string[]): string[] {
  const { runs } = figures.closed;
  return names.flatMap((name) =>
    SCENARIOS.filter((scenario) => runs.get(`${name}|${scenario}`).length > 0).map((scenario) => {
      const list = runs.get(`${name}|${scenario}`);
      const of = (pick: (r: (typeof list)[0]) => number, digits = 0) => show(spread(list.map(pick)), digits);
      const unsteady = list.filter((r) => !r.steady).length;
      return `| ${name} | ${scenario}${unsteady ? ` **${unsteady} not steady**` : ''} | ${of((r) => r.requestsPerSec)} | ${of((r) => r.cpuUsPerRequest, 1)} | ${of((r) => r.p50Ms, 2)} | ${of((r) => r.p99Ms, 2)} | ${list.reduce((sum, r) => sum + r.non2xx, 0)} | ${of((r) => r.maxRssMb)} |`;
    }),
  );
}

function growthRows(figures: RunFigures): string[] {
  return figures.growth.keys().map((key) => {
    const [engine, layout, size] = key.split('|');
    const runs = figures.growth.get(key);
    const of = (pick: (r: (typeof runs)[0]) => number) => show(spread(runs.map(pick)), 2);
    return `| ${engine} | ${layout} | ${Number(size).toLocaleString('en')} | ${of((r) => r.get.p50)} | ${of((r) => r.get.p99)} | ${of((r) => r.create.p50)} | ${of((r) => r.create.p99)} | ${of((r) => r.lag.p99)} | ${Math.max(...runs.map((r) => r.maxRssMb))} |`;
  });
}

export function chart(figures: RunFigures, context: ReportContext): string {
  const { runs } = figures.closed;
  const names = context.names;
  const colours = ['#2f7d32', '#9ccc65', '#1565c0', '#9e9e9e', '#e65100', '#6a1b9a', '#00838f', '#c62828'];
  const max = Math.max(1, ...runs.keys().flatMap((key) => runs.get(key).map((r) => r.requestsPerSec)));
  const barWidth = 22;
  const groupWidth = names.length * barWidth + 40;
  const height = 280;
  const width = 80 + SCENARIOS.length * groupWidth + 380;
  const y = (value: number) => height - 30 - (value / max) * (height - 60);
  const bars = SCENARIOS.flatMap((scenario, g) =>
    names.map((name, i) => {
      const figure = spread(runs.get(`${name}|${scenario}`).map((r) => r.requestsPerSec));
      if (!figure) return '';
      const x = 80 + g * groupWidth + i * barWidth;
      const middle = x + (barWidth - 4) / 2;
      return `<rect x="${x}" y="${y(figure.median)}" width="${barWidth - 4}" height="${height - 30 - y(figure.median)}" fill="${colours[i % colours.length]}"><title>${name} ${scenario}: ${show(figure)} req/s</title></rect>
<line x1="${middle}" x2="${middle}" y1="${y(figure.min)}" y2="${y(figure.max)}" stroke="#000"/>`;
    }),
  );
  const labels = SCENARIOS.map(
    (scenario, g) =>
      `<text x="${80 + g * groupWidth + (names.length * barWidth) / 2}" y="${height - 10}" text-anchor="middle">${scenario}</text>`,
  );
  const legend = names.map(
    (name, i) =>
      `<rect x="${width - 370}" y="${20 + i * 22}" width="14" height="14" fill="${colours[i % colours.length]}"/><text x="${width - 350}" y="${32 + i * 22}">${name}</text>`,
  );
  const axis = [0, 0.5, 1].map((f) => `<text x="70" y="${y(f * max)}" text-anchor="end">${Math.round(f * max)}</text>`);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12">
<text x="80" y="14">requests/s, median of ${context.rounds} rounds (line: min-max), ${context.connections} connections, higher is better</text>
${axis.join('\n')}
${bars.join('\n')}
${labels.join('\n')}
${legend.join('\n')}
</svg>
`;
}

export function report(figures: RunFigures, goals: Goal[], context: ReportContext): string {
  const groups = [...figures.groups.values()];
  const closedRows = closedStageRows(figures, context.names);
  const growth = growthRows(figures);
  const { sdk } = context;
  return `# Benchmarks

Made by \`${context.command}\` on ${new Date().toISOString().slice(0, 10)} in ${context.minutes.toFixed(1)} minutes: ${context.rounds} round${context.rounds === 1 ? '' : 's'}, Node
${process.version}, ${execFileSync('nproc').toString().trim()} cores (${execFileSync('uname', ['-sr']).toString().trim()}); every server pinned to core 0, \`wrk\` and the open-loop generator to core 1. Load
average (1, 5, 15 min) when the run began: ${context.loadAtStart}; when it ended: ${context.loadAtEnd} (the benchmark itself keeps about 2 busy).
Every figure is the **median over the rounds, with the spread (min-max)**; a ratio is the median of the per-round
ratios. A figure whose warm-up (\`tools/bench/src/warm-up.ts\`: runs of ${context.warmUpSeconds} s until two in a row agree on CPU per request within
${WARM_UP_TOLERANCE * 100}% and the last is within it of the lowest, at most ${WARM_UP_MAX_RUNS}) did not end steady is marked **not steady** and left out of
every ratio. How a run works, and what the figures mean: below the tables.

## Goals

${goalsTable(goals)}

## Headline: the defaults, side by side

${
  groups.length === 0
    ? 'Not run (`--no-headline`).'
    : groups
        .map(
          (group) => `### ${group.name}

Started afresh each round (one process differs from the next), up at once, each scenario warmed up on every server just
before it is measured in turn (order rotating): the hot read (\`GET /plants?limit=100\` as one principal,
wrk \`-t1 -c${context.connections}\`, ${context.seconds} s; its peak RSS is of servers that served the hot read alone),
the mixed workload, then the open loop on the hot read at ${LOADS.map((l) => `${l * 100}%`).join(' and ')} of bare
Fastify's hot read that round, the same rates for every server (${context.openSeconds} s each).

${closedTable(group)}

${openTable(group)}`,
        )
        .join('\n\n')
}

## Closed loop, every target in turn

${
  closedRows.length === 0
    ? 'Not run (`--targets none`).'
    : `![requests per second](benchmarks.svg)

| server | operation | req/s | server CPU us/request | p50 ms | p99 ms | non-2xx (all rounds) | peak RSS MB |
|---|---|---:|---:|---:|---:|---:|---:|
${closedRows.join('\n')}`
}

## Writes across workers

${figures.workers ? workersTable(figures.workers, { rounds: context.rounds, seconds: context.seconds, warmUpSeconds: context.warmUpSeconds }) : 'Not run (no `--workers`).'}

## What each layer costs

${context.layers ?? 'Not run (`--no-layers`).'}

## How cost grows with the data

${
  growth.length === 0
    ? 'Not run (`--no-scale`).'
    : `The service at a fixed ${SCALE_RATE} req/s open loop, ${context.openSeconds} s per step, mixed load for one principal, with ${SIZES.map((s) => s.toLocaleString('en')).join(', ')} plants stored.

| engine | layout | stored plants | get p50 ms | get p99 ms | create p50 ms | create p99 ms | generator lag p99 ms | peak RSS MB |
|---|---|---:|---:|---:|---:|---:|---:|---:|
${growth.join('\n')}`
}

## SDK overhead

${sdk ? `Sequential \`plants.list({ limit: 10 })\` calls against the SQLite service, ${sdk.calls} each way: bare \`fetch\` + \`json()\` ${sdk.fetchUs.toFixed(0)} us per call, the SDK ${sdk.sdkUs.toFixed(0)} us: ${(sdk.sdkUs - sdk.fetchUs).toFixed(0)} us (${(((sdk.sdkUs - sdk.fetchUs) / sdk.fetchUs) * 100).toFixed(0)}%) of overhead per call.` : 'Not measured.'}
`;
}
