// The hot read as an A/B (issue 26 item 5): plant-store's cached 100-plant page against bare Fastify answering the
// same page from memory under the same response schema. Measured side by side, not minutes apart: both servers run
// at once (pinned to core 0, the idle one costs nothing), each is warmed up the same, and then wrk (core 1, the same
// connections and seconds) alternates between them, the one that goes first swapping every pair, so a change in what
// else the machine does (PostgreSQL's background writes after a PostgreSQL target, other processes) lands on both.
// The ratio is taken per pair.
import type { Target } from './targets.js';
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
    await run(a, options.warmUpSeconds);
    await run(b, options.warmUpSeconds);
    for (let i = 0; i < options.pairs; i++) {
      const pair = {} as AbPair;
      for (const side of i % 2 === 0 ? (['a', 'b'] as const) : (['b', 'a'] as const)) {
        pair[side] = await run(side === 'a' ? a : b, options.seconds);
      }
      pairs.push(pair);
      options.log(
        `  hot read A/B pair ${i + 1}: ${options.a.name} ${pair.a.requestsPerSec.toFixed(0)} req/s p50 ${pair.a.p50Ms} ms p99 ${pair.a.p99Ms} ms; ${options.b.name} ${pair.b.requestsPerSec.toFixed(0)} req/s p50 ${pair.b.p50Ms} ms p99 ${pair.b.p99Ms} ms; ratio ${(pair.a.requestsPerSec / pair.b.requestsPerSec).toFixed(2)}`,
      );
    }
  } finally {
    await Promise.all(started.map((server) => server.stop()));
  }
  return pairs;
}
