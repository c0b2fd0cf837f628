// The headline group's tables in Markdown: each side's closed-loop figures and its open-loop latency, peak RSS
// beside every throughput figure, and "not steady" wherever the warm-up rule (warm-up.ts) did not end steady.
import { LOADS } from './headline.js';
import type { ClosedRun, Group, OpenRun } from './side-by-side.js';
import { show, spread } from './stats.js';

const of = <R>(runs: R[], pick: (run: R) => number, digits = 0) => show(spread(runs.map(pick)), digits);
const unsteady = (runs: { steady: boolean }[]) => (runs.some((run) => !run.steady) ? ' **not steady**' : '');

export function closedTable(group: Group): string {
  const rows = group.sides.flatMap((side) =>
    side.scenarios.map((scenario) => {
      const runs: ClosedRun[] = group.closed.get(`${side.name}|${scenario}`);
      return `| ${side.name}${unsteady(runs)} | ${scenario} | ${of(runs, (r) => r.requestsPerSec)} | ${of(runs, (r) => r.cpuUsPerRequest, 1)} | ${of(runs, (r) => r.p50Ms, 2)} | ${of(runs, (r) => r.p99Ms, 2)} | ${of(runs, (r) => r.maxRssMb)} | ${runs.reduce((sum, r) => sum + r.non2xx, 0)} |`;
    }),
  );
  return [
    '| server | scenario | req/s | server CPU us/request | p50 ms | p99 ms | peak RSS MB | non-2xx |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
    ...rows,
  ].join('\n');
}

export function openTable(group: Group): string {
  const rows = LOADS.flatMap((load) =>
    group.sides
      .filter((side) => side.open)
      .map((side) => {
        const runs: OpenRun[] = group.open.get(`${side.name}|${load}`);
        const refused = runs.filter((r) => !r.get.verdicts.p99.valid).length;
        return `| ${side.name}${unsteady(runs)} | ${load * 100}% | ${of(runs, (r) => r.rate)} | ${of(runs, (r) => r.achievedRate)} | ${of(runs, (r) => r.get.p50, 2)} | ${of(runs, (r) => r.get.p99, 2)}${refused ? `; ${refused} not judged (generator lag)` : ''} | ${of(runs, (r) => r.lag.p99, 2)} | ${of(runs, (r) => r.serverCpuUsPerRequest, 1)} | ${of(runs, (r) => r.maxRssMb)} |`;
      }),
  );
  return [
    '| server | load (of bare Fastify) | rate req/s | achieved req/s | p50 ms | p99 ms | generator lag p99 ms | server CPU us/request | peak RSS MB |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
  ].join('\n');
}
