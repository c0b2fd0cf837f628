// `pnpm bench:runtime --base-checkout DIR --base-node PATH`: the service on this checkout and this Node against the
// service of another checkout (built, e.g. a `git worktree` of an older commit) on another Node binary, side by side
// in one run: both served from a fresh SQLite file (group commit), each wrk scenario run on one and then the other
// (server on core 0, wrk on core 1). The table gives each figure's median over the rounds with its spread (min-max)
// and the median of the paired ratios. Written for runtime upgrades (Node 20 -> 24 here); with the same Node on both
// sides it is a code A/B (`--scenarios get,mixed` picks the scenarios; the server's CPU per request is reported too).
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { show, spread } from './stats.js';
import { plantStore, sqliteFile, type Target } from './targets.js';
import { requireWrk, type Scenario, type WrkResult, wrkAgainst } from './wrk.js';

const { values } = parseArgs({
  options: {
    'base-checkout': { type: 'string' },
    'base-node': { type: 'string' },
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
    scenarios: { type: 'string', default: 'get,create,delete' },
  },
});
// `pnpm bench:runtime` runs this in tools/bench: relative paths are the caller's, where pnpm was started (INIT_CWD).
const here = (path: string | undefined) => path && resolve(process.env.INIT_CWD ?? process.cwd(), path);
const baseCheckout = here(values['base-checkout']);
const givenNode = here(values['base-node']);
if (!baseCheckout || !givenNode) {
  console.error('usage: pnpm bench:runtime --base-checkout DIR --base-node PATH [--rounds 3] [--seconds 5]');
  process.exit(2);
}
requireWrk();
// The binary itself, where PATH names a launcher (node_modules/.bin/node is a shell script that starts it): the
// server's process is then Node, whose pid, CPU and RSS are measured, not a shell's around it.
const baseNode = execFileSync(givenNode, ['-p', 'process.execPath'], { encoding: 'utf8' }).trim();

const versionOf = (node: string) => execFileSync(node, ['-p', 'process.version'], { encoding: 'utf8' }).trim();
const scenarios = values.scenarios.split(',').map((text) => text.trim()) as Scenario[];
const sides: Target[] = [
  plantStore(`${baseCheckout} on Node ${versionOf(baseNode)}`, sqliteFile, {}, scenarios, {
    node: baseNode,
    bin: join(baseCheckout, 'packages/server/bin/plant-store.js'),
  }),
  plantStore(`this checkout on Node ${process.version}`, sqliteFile, {}, scenarios),
];
const rounds = Number(values.rounds);
const seconds = Number(values.seconds);
type Pair = { old: WrkResult; new: WrkResult };
const pairs = new Map<Scenario, Pair[]>();
// Both servers run for the whole comparison (an idle one costs nothing); each scenario is measured on one and then
// at once on the other, the order alternating by round, so every pair shares the machine's state of that moment.
const [oldSide, newSide] = sides as [Target, Target];
const oldServer = await oldSide.start(3990);
const newServer = await newSide.start(3991);
try {
  for (let round = 1; round <= rounds; round++) {
    for (const [index, scenario] of scenarios.entries()) {
      // Deletes remove what the create run of the same round made on the same server.
      const base = 1_000_000 + round * 100_000_000 + (scenario === 'delete' ? 1 : index) * 10_000_000;
      const measure = (running: typeof oldServer) =>
        wrkAgainst(running, { scenario, base, seconds, connections: Number(values.connections) });
      const oldFirst = round % 2 === 1;
      const first = await measure(oldFirst ? oldServer : newServer);
      const second = await measure(oldFirst ? newServer : oldServer);
      const pair = oldFirst ? { old: first, new: second } : { old: second, new: first };
      pairs.set(scenario, [...(pairs.get(scenario) ?? []), pair]);
      console.error(
        `round ${round} ${scenario}: old ${pair.old.requestsPerSec.toFixed(0)} req/s ${pair.old.cpuUsPerRequest.toFixed(0)} us CPU/request, new ${pair.new.requestsPerSec.toFixed(0)} req/s ${pair.new.cpuUsPerRequest.toFixed(0)} us CPU/request`,
      );
    }
  }
} finally {
  await Promise.all([oldServer.stop(), newServer.stop()]);
}

const median = (list: number[]) => spread(list)?.median ?? Number.NaN;
const lines = [
  `Runtime A/B: old = ${oldSide.name}, new = ${newSide.name}. ${rounds} rounds x ${scenarios.length} scenarios x`,
  `${seconds} s, ${values.connections} connections, SQLite with group commit, both servers on core 0 and wrk on core 1,`,
  'old and new measured back to back per scenario (order alternating by round). Median of the rounds (min-max); the',
  'ratio is the median of the per-pair ratios new/old.',
  '',
  '| scenario | old req/s | new req/s | new/old | old CPU us/request | new CPU us/request | old p99 ms | new p99 ms | old RSS MB | new RSS MB |',
  '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
];
for (const scenario of scenarios) {
  const list = pairs.get(scenario) ?? [];
  const of = (side: 'old' | 'new', figure: keyof WrkResult) => list.map((pair) => pair[side][figure]);
  const ratios = list.map((pair) => pair.new.requestsPerSec / pair.old.requestsPerSec);
  lines.push(
    `| ${scenario} | ${show(spread(of('old', 'requestsPerSec')))} | ${show(spread(of('new', 'requestsPerSec')))} | ${show(spread(ratios), 2)}x | ${show(spread(of('old', 'cpuUsPerRequest')))} | ${show(spread(of('new', 'cpuUsPerRequest')))} | ${median(of('old', 'p99Ms'))} | ${median(of('new', 'p99Ms'))} | ${Math.max(...of('old', 'maxRssMb'))} | ${Math.max(...of('new', 'maxRssMb'))} |`,
  );
}
console.log(lines.join('\n'));
