// `pnpm bench`: throughput, latency and memory of the service next to the framework ceiling and the usual peer,
// measured side by side in one run (server on core 0, wrk on core 1), written to docs/benchmarks.md with a chart.
// The whole set runs --rounds times (default 3) and each figure is the median round, so a noisy moment on the
// shared machine cannot decide a ratio. Options: --seconds N (per scenario, default 5), --connections N (50),
// --rounds N, --no-postgres, --soak N (seconds; then only the sustained-load test runs).
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { sdkOverhead } from './bench/sdk-overhead.js';
import { soak } from './bench/soak.js';
import { targets } from './bench/targets.js';
import { type Scenario, type WrkResult, wrk } from './bench/wrk.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
    'no-postgres': { type: 'boolean', default: false },
    soak: { type: 'string' },
  },
});
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const docs = fileURLToPath(new URL('../docs/', import.meta.url));

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

interface Row extends WrkResult {
  target: string;
  scenario: Scenario;
}
const rows: Row[] = [];
let port = 3950;
let sdk: Awaited<ReturnType<typeof sdkOverhead>> | undefined;
for (const target of targets(postgresUp)) {
  const running = await target.start(port++);
  try {
    for (const scenario of target.scenarios) {
      const base = 1_000_000 + rows.length * 10_000_000;
      // Deletes remove what the create run made; a create run always precedes them.
      const result = await wrk({
        url: running.url,
        scenario,
        token: running.token,
        base: scenario === 'delete' ? base - 10_000_000 : base,
        seconds: scenario === 'delete' ? Math.max(2, Math.round(seconds / 2)) : seconds,
        connections,
        serverPid: running.pid,
      });
      rows.push({ target: target.name, scenario, ...result });
      console.log(
        `${target.name} ${scenario}: ${result.requestsPerSec.toFixed(0)} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, non-2xx ${result.non2xx}, RSS ${result.maxRssMb} MB`,
      );
    }
    if (target.name.startsWith('plant-store, SQLite (group')) sdk = await sdkOverhead(running.url, running.token);
  } finally {
    await running.stop();
  }
}

const find = (target: string, scenario: Scenario) =>
  rows.find((row) => row.target.startsWith(target) && row.scenario === scenario);
const ratio = (a?: Row, b?: Row) => (a && b ? `${(a.requestsPerSec / b.requestsPerSec).toFixed(2)}x` : 'n/a');
const ours = (scenario: Scenario) => find('plant-store, SQLite (group', scenario);
const ratios = [
  ['getPlants vs bare Fastify ceiling (target >= 0.8x)', ratio(ours('get'), find('bare Fastify', 'get'))],
  ['getPlants vs Express peer (target >= 3x)', ratio(ours('get'), find('Express', 'get'))],
  [
    'createPlant group commit vs commit per request (target >= 4x)',
    ratio(ours('create'), find('plant-store, SQLite (commit', 'create')),
  ],
  ['createPlant vs Express peer (target >= 3x)', ratio(ours('create'), find('Express', 'create'))],
  [
    'deletePlant group commit vs commit per request',
    ratio(ours('delete'), find('plant-store, SQLite (commit', 'delete')),
  ],
  ['getPlants PostgreSQL vs SQLite', ratio(find('plant-store, PostgreSQL', 'get'), ours('get'))],
  ['createPlant PostgreSQL vs SQLite', ratio(find('plant-store, PostgreSQL', 'create'), ours('create'))],
];

function chart(): string {
  const scenarios: Scenario[] = ['get', 'create', 'delete'];
  const names = [...new Set(rows.map((row) => row.target))];
  const colours = ['#2f7d32', '#9ccc65', '#1565c0', '#9e9e9e', '#e65100'];
  const max = Math.max(...rows.map((row) => row.requestsPerSec));
  const barWidth = 22;
  const groupWidth = names.length * barWidth + 40;
  const height = 260;
  const width = 80 + scenarios.length * groupWidth + 360;
  const bars = scenarios.flatMap((scenario, g) =>
    names.map((name, i) => {
      const row = rows.find((r) => r.target === name && r.scenario === scenario);
      if (!row) return '';
      const h = Math.round((row.requestsPerSec / max) * (height - 60));
      const x = 80 + g * groupWidth + i * barWidth;
      return `<rect x="${x}" y="${height - 30 - h}" width="${barWidth - 4}" height="${h}" fill="${colours[i % colours.length]}"><title>${name} ${scenario}: ${row.requestsPerSec.toFixed(0)} req/s</title></rect>`;
    }),
  );
  const labels = scenarios.map(
    (scenario, g) =>
      `<text x="${80 + g * groupWidth + (names.length * barWidth) / 2}" y="${height - 10}" text-anchor="middle">${scenario}</text>`,
  );
  const legend = names.map(
    (name, i) =>
      `<rect x="${width - 350}" y="${20 + i * 22}" width="14" height="14" fill="${colours[i % colours.length]}"/><text x="${width - 330}" y="${32 + i * 22}">${name}</text>`,
  );
  const axis = [0, 0.5, 1].map(
    (f) => `<text x="70" y="${height - 30 - f * (height - 60)}" text-anchor="end">${Math.round(f * max)}</text>`,
  );
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12">
<text x="80" y="14">requests/s, ${connections} connections, higher is better</text>
${axis.join('\n')}
${bars.join('\n')}
${labels.join('\n')}
${legend.join('\n')}
</svg>
`;
}

const table = rows.map(
  (row) =>
    `| ${row.target} | ${row.scenario} | ${row.requestsPerSec.toFixed(0)} | ${row.p50Ms.toFixed(2)} | ${row.p99Ms.toFixed(2)} | ${row.non2xx} | ${row.maxRssMb} |`,
);
const report = `# Benchmarks

Made by \`pnpm bench\` (${values.rounds} rounds, median shown; ${seconds} s per read and create run, ${connections} connections) on ${new Date().toISOString().slice(0, 10)}:
Node ${process.version}, ${execFileSync('nproc').toString().trim()} cores; every server pinned to core 0 with \`taskset\`,
\`wrk\` pinned to core 1. All servers ran in this one run, side by side. getPlants reads a 100-plant page; createPlant
inserts a new id per request with the same durability everywhere (SQLite WAL + \`synchronous=FULL\`); deletePlant removes
the plants the create run made. plant-store ran with \`LOG_LEVEL=warn\` and \`RATE_LIMIT_MAX=0\`. The machine is shared
and noisy: compare ratios within one run, not absolute figures across runs.

![requests per second](benchmarks.svg)

| server | operation | req/s | p50 ms | p99 ms | non-2xx | max RSS MB |
|---|---|---:|---:|---:|---:|---:|
${table.join('\n')}

## Ratios

| comparison | ratio |
|---|---:|
${ratios.map(([label, value]) => `| ${label} | ${value} |`).join('\n')}

## SDK overhead

${sdk ? `Sequential \`plants.list({ limit: 10 })\` calls against the SQLite service, ${sdk.calls} each way: bare \`fetch\` + \`json()\` ${sdk.fetchUs.toFixed(0)} us per call, the SDK ${sdk.sdkUs.toFixed(0)} us per call: ${(sdk.sdkUs - sdk.fetchUs).toFixed(0)} us (${(((sdk.sdkUs - sdk.fetchUs) / sdk.fetchUs) * 100).toFixed(0)}%) of overhead per call.` : 'not measured'}
`;
mkdirSync(docs, { recursive: true });
writeFileSync(`${docs}benchmarks.md`, report);
writeFileSync(`${docs}benchmarks.svg`, chart());
console.log(`\nwrote docs/benchmarks.md and docs/benchmarks.svg\n`);
console.log(ratios.map(([label, value]) => `${label}: ${value}`).join('\n'));
