// What a stream of single requests costs a server on this machine, against what the closed loop's bursts cost it: the
// SQLite service and the floor (floor-server.ts: node:http writing the service's own hot-read answer, no framework),
// both pinned to core 0 and started once. Each round measures the service's closed-loop capacity (wrk, core 1, 50
// connections, 5 s, the hot read) and the floor's, then runs the open-loop generator (open-loop.ts, core 1) against
// each in turn, the one that goes first swapping every run, at the same rates: `--loads` of the service's capacity
// that round. Each run reports the server's CPU per request beside its closed loop's; the difference is what each
// request paid for arriving alone (the wake-ups), and it is much the same for both, so it is the machine's, not the
// service's. Where the service's CPU per request at a rate times that rate nears its core, the target is at what it
// sustains from a stream (docs/benchmarks.md, "Open loop").
// Usage: tsx tools/bench/src/open-loop-floor.ts [--rounds 3] [--seconds 4] [--loads 0.4,0.6,0.8] [--port 7420]
import { parseArgs } from 'node:util';
import { type OpenLoopResult, openLoop, serverCoreBusy } from './open-loop.js';
import { show, spread } from './stats.js';
import { FLOOR, floorOf, plantStore, type Running, sqliteFile } from './targets.js';
import { requireWrk, wrk } from './wrk.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '4' },
    loads: { type: 'string', default: '0.4,0.6,0.8' },
    port: { type: 'string', default: '7420' },
  },
});
requireWrk();
const rounds = Number(values.rounds);
const seconds = Number(values.seconds);
const loads = values.loads.split(',').map(Number);
const port = Number(values.port);

const SERVICE = 'plant-store, SQLite';
const service = await plantStore(SERVICE, sqliteFile).start(port);
const servers: [string, Running][] = [
  [SERVICE, service],
  [FLOOR, await floorOf(service).start(port + 1)],
];
interface Row {
  closedUs: number;
  rate: number;
  run: OpenLoopResult;
}
const rows = new Map<string, Row[]>();
let base = 10_000_000;
try {
  for (let round = 0; round < rounds; round++) {
    const closed = new Map<string, { rps: number; us: number }>();
    for (const [name, server] of servers) {
      // The first run of a round warms the server up; the second is the figure.
      for (const _ of [0, 1]) {
        const result = await wrk({
          ...server,
          scenario: 'get',
          base: 0,
          seconds: 5,
          connections: 50,
          serverPid: server.pid,
        });
        closed.set(name, { rps: result.requestsPerSec, us: result.cpuUsPerRequest });
      }
      console.log(
        `round ${round + 1}: ${name} closed loop ${closed.get(name)!.rps.toFixed(0)} req/s, ${closed.get(name)!.us.toFixed(1)} us CPU/request`,
      );
    }
    for (const [i, load] of loads.entries()) {
      const rate = Math.round(closed.get(SERVICE)!.rps * load);
      const order = (round + i) % 2 === 0 ? servers : [...servers].reverse();
      for (const [name, server] of order) {
        const run = await openLoop({
          url: server.url,
          rate,
          seconds,
          kind: 'get',
          tokens: [server.token],
          base: base++,
          serverPid: server.pid,
        });
        const key = `${name}|${load}`;
        rows.set(key, [...(rows.get(key) ?? []), { closedUs: closed.get(name)!.us, rate, run }]);
        console.log(
          `  ${name} at ${rate}/s (${load * 100}% of the service's capacity): ${run.serverCpuUsPerRequest.toFixed(1)} us CPU/request (closed loop ${closed.get(name)!.us.toFixed(1)}), p50 ${run.get.p50.toFixed(2)} ms, p99 ${run.get.p99.toFixed(2)} ms, generator lag p99 ${run.lag.p99.toFixed(2)} ms, errors ${run.errors + run.non2xx}`,
        );
      }
    }
  }
} finally {
  for (const [, server] of servers) await server.stop();
}

console.log(
  `\n| server | load (of the service's capacity) | rate req/s | CPU us/request, stream | closed loop | paid for arriving alone, us | core busy | p50 ms | p99 ms | generator lag p99 ms |`,
);
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const load of loads) {
  for (const [name] of servers) {
    const runs = rows.get(`${name}|${load}`) ?? [];
    const of = (pick: (row: Row) => number, digits: number) => show(spread(runs.map(pick)), digits);
    console.log(
      `| ${name} | ${load * 100}% | ${of((r) => r.rate, 0)} | ${of((r) => r.run.serverCpuUsPerRequest, 1)} | ${of((r) => r.closedUs, 1)} | ${of((r) => r.run.serverCpuUsPerRequest - r.closedUs, 1)} | ${of((r) => serverCoreBusy(r.run), 0)}% | ${of((r) => r.run.get.p50, 2)} | ${of((r) => r.run.get.p99, 2)} | ${of((r) => r.run.lag.p99, 2)} |`,
    );
  }
}
