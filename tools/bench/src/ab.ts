// `pnpm bench:ab`: an A/B of any two servers already listening, by the outside method (ab-args.ts) or with both
// loaded at once (--together), printing each round and the ratios. Usage: pnpm bench:ab --help
import { randomInt } from 'node:crypto';
import { AB_USAGE, type AbRun, abOrder, abRatios, parseAbArgs } from './ab-args.js';
import { show } from './stats.js';
import { requireWrk, wrk } from './wrk.js';

let options: ReturnType<typeof parseAbArgs>;
try {
  if (process.argv.includes('--help')) {
    console.log(AB_USAGE);
    process.exit(0);
  }
  options = parseAbArgs(process.argv.slice(2).filter((arg) => arg !== '--'));
} catch (error) {
  console.error(`bench:ab: ${(error as Error).message}\n\n${AB_USAGE}`);
  process.exit(2);
}
requireWrk();
const servers = { a: { url: options.a, pid: options.aPid ?? 0 }, b: { url: options.b, pid: options.bPid ?? 0 } };
// The mixed workload's creates take ids from base + 1,000,000 up (wrk.ts), a run's fewer than 10,000,000: every run
// gets a block of its own, and this invocation a random range of blocks, so neither an earlier run nor the other side
// on the same database answers 409.
let runs = 0;
const firstBlock = randomInt(1, 100_000) * 1_000;
const measure = (side: 'a' | 'b', seconds: number) =>
  wrk({
    url: servers[side].url,
    scenario: options.scenario,
    token: options.tokens[0] ?? '',
    tokens: options.tokens,
    path: options.path,
    headers: options.headers,
    base: (firstBlock + runs++) * 10_000_000,
    seconds,
    connections: options.connections,
    serverPid: servers[side].pid,
    cores: options.core,
  });
const line = (side: 'a' | 'b', r: Awaited<ReturnType<typeof measure>>) =>
  `${side.toUpperCase()} ${r.requestsPerSec.toFixed(0)} req/s, p99 ${r.p99Ms} ms, non-2xx ${r.non2xx}${servers[side].pid ? `, ${r.cpuUsPerRequest.toFixed(1)} us CPU/request, peak RSS ${r.maxRssMb} MB` : ''}`;

// Together, both sides run each warm-up and each round at once; else one after the other, the order rotating.
const both = (seconds: number) => Promise.all([measure('a', seconds), measure('b', seconds)]);
if (options.together) {
  for (let i = 0; i < options.warmUpRuns; i++) await both(options.warmUpSeconds);
  console.log(`warmed up A and B together: ${options.warmUpRuns} runs of ${options.warmUpSeconds} s`);
} else {
  for (const side of ['a', 'b'] as const) {
    for (let i = 0; i < options.warmUpRuns; i++) await measure(side, options.warmUpSeconds);
    console.log(
      `warmed up ${side.toUpperCase()} (${servers[side].url}): ${options.warmUpRuns} runs of ${options.warmUpSeconds} s`,
    );
  }
}
const rounds: { a: AbRun; b: AbRun }[] = [];
for (let round = 0; round < options.rounds; round++) {
  const pair = {} as { a: AbRun; b: AbRun };
  const parts: string[] = [];
  if (options.together) {
    const [a, b] = await both(options.seconds);
    pair.a = a;
    pair.b = b;
    parts.push(line('a', a), line('b', b));
  } else {
    for (const side of abOrder(round)) {
      const result = await measure(side, options.seconds);
      pair[side] = result;
      parts.push(line(side, result));
    }
  }
  rounds.push(pair);
  console.log(
    `round ${round + 1}: ${parts.join('; ')}; A/B ${(pair.a.requestsPerSec / pair.b.requestsPerSec).toFixed(2)}`,
  );
}
const ratios = abRatios(rounds, Boolean(options.aPid && options.bPid));
console.log(`\nA/B over ${options.rounds} rounds${options.together ? ', together' : ''}, median (min-max):`);
console.log(`  req/s  ${show(ratios.requestsPerSec, 2)}`);
console.log(`  p99    ${show(ratios.p99, 2)}`);
if (ratios.rss) console.log(`  peak RSS ${show(ratios.rss, 2)}`);
if (ratios.cpu) console.log(`  CPU/request ${show(ratios.cpu, 2)}`);
