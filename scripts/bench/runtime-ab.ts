// `pnpm bench:runtime --base-checkout DIR --base-node PATH`: the service on this checkout and this Node against the
// service of another checkout (built, e.g. a `git worktree` of an older commit) on another Node binary, side by side
// in one run. Each round starts both, one after the other, with a fresh SQLite file (group commit), and runs the
// same wrk scenarios against each (server on core 0, wrk on core 1); the table gives the median of the rounds and
// their spread (min-max), and the ratio of the medians. Written for runtime upgrades (Node 20 -> 24 here).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { plantStore, sqliteFile, type Target } from './targets.js';
import { type Scenario, type WrkResult, wrk } from './wrk.js';

const { values } = parseArgs({
  options: {
    'base-checkout': { type: 'string' },
    'base-node': { type: 'string' },
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
  },
});
const baseCheckout = values['base-checkout'];
const baseNode = values['base-node'];
if (!baseCheckout || !baseNode) {
  console.error('usage: pnpm bench:runtime --base-checkout DIR --base-node PATH [--rounds 3] [--seconds 5]');
  process.exit(2);
}
try {
  execFileSync('wrk', ['--version'], { stdio: 'ignore' });
} catch (error) {
  // wrk --version exits 1 after printing; only a missing binary is fatal.
  if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
    console.error('wrk is not installed: apt-get install -y wrk');
    process.exit(2);
  }
}

const versionOf = (node: string) => execFileSync(node, ['-p', 'process.version'], { encoding: 'utf8' }).trim();
const scenarios: Scenario[] = ['get', 'create', 'delete'];
const sides: Target[] = [
  plantStore(`${baseCheckout} on Node ${versionOf(baseNode)}`, sqliteFile, {}, scenarios, {
    node: baseNode,
    bin: join(baseCheckout, 'packages/server/bin/plant-store.js'),
  }),
  plantStore(`this checkout on Node ${process.version}`, sqliteFile, {}, scenarios),
];
const rounds = Number(values.rounds);
const seconds = Number(values.seconds);
const results = new Map<string, WrkResult[]>();
let port = 3990;
for (let round = 1; round <= rounds; round++) {
  for (const side of sides) {
    const running = await side.start(port++);
    try {
      for (const [index, scenario] of scenarios.entries()) {
        // Deletes remove what the create run of the same server made.
        const base = 1_000_000 + round * 100_000_000 + (scenario === 'delete' ? 1 : index) * 10_000_000;
        const result = await wrk({
          url: running.url,
          scenario,
          token: running.token,
          base,
          seconds,
          connections: Number(values.connections),
          serverPid: running.pid,
        });
        const key = `${side.name}|${scenario}`;
        results.set(key, [...(results.get(key) ?? []), result]);
        console.error(`round ${round} ${side.name} ${scenario}: ${result.requestsPerSec.toFixed(0)} req/s`);
      }
    } finally {
      await running.stop();
    }
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};
const [oldSide, newSide] = sides as [Target, Target];
const lines = [
  `Runtime A/B: ${rounds} rounds x ${scenarios.length} scenarios x ${seconds} s, ${values.connections} connections, SQLite`,
  'group commit, each round starting both servers afresh; median of the rounds (min-max).',
  '',
  `| scenario | ${oldSide.name} req/s | ${newSide.name} req/s | new/old | p99 ms old | p99 ms new | RSS MB old | RSS MB new |`,
  '| --- | --- | --- | --- | --- | --- | --- | --- |',
];
for (const scenario of scenarios) {
  const a = results.get(`${oldSide.name}|${scenario}`) ?? [];
  const b = results.get(`${newSide.name}|${scenario}`) ?? [];
  const rps = (r: WrkResult[]) => r.map((x) => x.requestsPerSec);
  const spread = (r: WrkResult[]) =>
    `${median(rps(r)).toFixed(0)} (${Math.min(...rps(r)).toFixed(0)}-${Math.max(...rps(r)).toFixed(0)})`;
  lines.push(
    `| ${scenario} | ${spread(a)} | ${spread(b)} | ${(median(rps(b)) / median(rps(a))).toFixed(2)}x | ${median(a.map((x) => x.p99Ms))} | ${median(b.map((x) => x.p99Ms))} | ${median(a.map((x) => x.maxRssMb))} | ${median(b.map((x) => x.maxRssMb))} |`,
  );
}
console.log(lines.join('\n'));
