// The hot read as an A/B (issue 26 item 5): plant-store's cached 100-plant page against bare Fastify answering the
// same page from memory under the same response schema. Measured side by side, not minutes apart: both servers run
// at once (pinned to core 0, the idle one costs nothing), each is warmed up the same, and then wrk (core 1, the same
// connections and seconds) alternates between them, the one that goes first swapping every pair, so a change in what
// else the machine does (PostgreSQL's background writes after a PostgreSQL target, other processes) lands on both.
// The ratio is taken per pair. Each side is warmed up by the same rule (warm-up.ts: runs until its CPU per request is
// steady), and every run reports that CPU per request beside req/s: where the two sides differ, it says by how much
// each request costs more, which a shared machine shakes far less than requests per second.
import { show, spread } from './stats.js';
import type { Target } from './targets.js';
import { cpuTrail, steadiness, warmUntilSteady } from './warm-up.js';
import { type WrkResult, wrk } from './wrk.js';

export interface AbPair {
  a: WrkResult;
  b: WrkResult;
}

export async function hotReadAB(options: {
  a: Target;
  b: Target;
  pairs: number;
  seconds: number;
  /** Seconds of each warm-up run; runs repeat until CPU per request is steady (warm-up.ts). */
  warmUpSeconds: number;
  connections: number;
  port: number;
  log: (line: string) => void;
}): Promise<AbPair[]> {
  const started = [await options.a.start(options.port), await options.b.start(options.port + 1)];
  const [a, b] = started as [(typeof started)[0], (typeof started)[0]];
  const run = (server: typeof a, seconds: number) =>
    wrk({
      url: server.url,
      scenario: 'get',
      token: server.token,
      base: 0,
      seconds,
      connections: options.connections,
      serverPid: server.pid,
    });
  const pairs: AbPair[] = [];
  try {
    for (const [target, server] of [
      [options.a, a],
      [options.b, b],
    ] as const) {
      const warm = await warmUntilSteady(() => run(server, options.warmUpSeconds));
      options.log(
        `  hot read A/B warm-up, ${target.name}: ${warm.runs.length} runs of ${options.warmUpSeconds} s, ${cpuTrail(warm)}${steadiness(warm)}`,
      );
    }
    for (let i = 0; i < options.pairs; i++) {
      const pair = {} as AbPair;
      for (const side of i % 2 === 0 ? (['a', 'b'] as const) : (['b', 'a'] as const)) {
        pair[side] = await run(side === 'a' ? a : b, options.seconds);
      }
      pairs.push(pair);
      // The share of a core the server used: far below 100% means it waited (on its core, shared with other
      // processes, or on wrk), not that it worked; a side that got less of the core than the other is slower for that.
      const side = (name: string, r: WrkResult) =>
        `${name} ${r.requestsPerSec.toFixed(0)} req/s, ${r.cpuUsPerRequest.toFixed(1)} us CPU/request, ${((r.cpuSeconds / options.seconds) * 100).toFixed(0)}% of a core, p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms`;
      options.log(
        `  hot read A/B pair ${i + 1}: ${side(options.a.name, pair.a)}; ${side(options.b.name, pair.b)}; ratio ${(pair.a.requestsPerSec / pair.b.requestsPerSec).toFixed(2)}`,
      );
    }
  } finally {
    await Promise.all(started.map((server) => server.stop()));
  }
  return pairs;
}

/** One A/B's table: plant-store's figures, bare Fastify's, and their ratio per pair; empty when it did not run. */
export const abTable = (name: string, bare: string, pairs: AbPair[]) =>
  pairs.length === 0
    ? ''
    : `| server | req/s | us CPU/request | p50 ms | p99 ms |
|---|---:|---:|---:|---:|
| ${name} | ${show(spread(pairs.map((p) => p.a.requestsPerSec)))} | ${show(spread(pairs.map((p) => p.a.cpuUsPerRequest)), 1)} | ${show(spread(pairs.map((p) => p.a.p50Ms)), 2)} | ${show(spread(pairs.map((p) => p.a.p99Ms)), 2)} |
| ${bare} | ${show(spread(pairs.map((p) => p.b.requestsPerSec)))} | ${show(spread(pairs.map((p) => p.b.cpuUsPerRequest)), 1)} | ${show(spread(pairs.map((p) => p.b.p50Ms)), 2)} | ${show(spread(pairs.map((p) => p.b.p99Ms)), 2)} |
| ratio per pair | ${show(spread(pairs.map((p) => p.a.requestsPerSec / p.b.requestsPerSec)), 2)} | ${show(spread(pairs.map((p) => p.a.cpuUsPerRequest / p.b.cpuUsPerRequest)), 2)} | ${show(spread(pairs.map((p) => p.a.p50Ms / p.b.p50Ms)), 2)} | ${show(spread(pairs.map((p) => p.a.p99Ms / p.b.p99Ms)), 2)} |`;
