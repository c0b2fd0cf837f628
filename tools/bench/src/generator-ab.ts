// The open-loop generator against an earlier one, interleaved in one run: bare Fastify (the ceiling) on core 0, its
// capacity from closed-loop wrk, then each round at each load both generators in turn on core 1 (the one that goes
// first swaps every run), same rate, same seconds; it prints latency, the generator's lag, CPU and verdicts as a table.
// The earlier generator is taken from git (`--before <commit>`: tools/bench/src at that commit, into a temporary
// folder under the ignored .tmp/, removed at the end).
// Usage: tsx tools/bench/src/generator-ab.ts --before <commit> [--rounds 3] [--seconds 4] [--loads 0.5,0.8]
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runToEnd } from './children.js';
import type { OpenLoopResult } from './open-loop.js';
import { targets } from './targets.js';
import { requireWrk, wrk } from './wrk.js';

const { values } = parseArgs({
  options: {
    before: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '4' },
    loads: { type: 'string', default: '0.5,0.8' },
    port: { type: 'string', default: '3990' },
  },
});
if (!values.before) {
  console.error(
    'usage: tsx tools/bench/src/generator-ab.ts --before <commit> [--rounds N] [--seconds N] [--loads 0.5,0.8]',
  );
  process.exit(2);
}
requireWrk();
const here = dirname(fileURLToPath(import.meta.url));
const root = execFileSync('git', ['rev-parse', '--show-toplevel'], { cwd: here }).toString().trim();
mkdirSync(join(root, '.tmp'), { recursive: true });
const earlier = mkdtempSync(join(root, '.tmp', 'generator-before-'));
const archive = execFileSync('git', ['archive', values.before, 'tools/bench/src'], { cwd: root });
execFileSync('tar', ['-x', '--strip-components=3', '-C', earlier], { input: archive });
const generators = {
  before: join(earlier, 'open-loop-generator.ts'),
  after: join(here, 'open-loop-generator.ts'),
};

const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
const bare = targets(false).find((target) => target.name.startsWith('bare Fastify'));
if (!bare) throw new Error('no bare Fastify target');
const running = await bare.start(Number(values.port));
try {
  const seconds = Number(values.seconds);
  await wrk({
    url: running.url,
    scenario: 'get',
    token: running.token,
    base: 0,
    seconds: 2,
    connections: 50,
    serverPid: running.pid,
  });
  const capacity = (
    await wrk({
      url: running.url,
      scenario: 'get',
      token: running.token,
      base: 0,
      seconds,
      connections: 50,
      serverPid: running.pid,
    })
  ).requestsPerSec;
  console.log(
    `bare Fastify capacity (wrk -t1 -c50, ${seconds} s): ${capacity.toFixed(0)} req/s, load average ${loadAverage()}`,
  );
  console.log(`before: ${values.before}; after: the working tree`);
  console.log(
    '| round | load | rate | generator | p50 ms | p99 ms | lag p50 / p99 / max ms | CPU | p50, p99 verdicts | load avg |',
  );
  console.log('|---|---|---:|---|---:|---:|---:|---:|---|---|');
  const loads = values.loads.split(',').map(Number);
  let turn = 0;
  for (let round = 1; round <= Number(values.rounds); round++) {
    for (const load of loads) {
      const rate = Math.round(capacity * load);
      const order = turn++ % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const);
      for (const name of order) {
        const plan = {
          url: running.url,
          rate,
          seconds,
          kind: 'get',
          tokens: [running.token],
          base: 0,
          connections: 64,
        };
        const run = await runToEnd('taskset', ['-c', '1', process.execPath, '--import', 'tsx', generators[name]], {
          ...process.env,
          OPEN_LOOP: JSON.stringify(plan),
        });
        if (run.code !== 0) throw new Error(`${name} generator exited with ${run.code}: ${run.stderr}`);
        const result = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as OpenLoopResult;
        const { get, lag } = result;
        const verdict = (key: 'p50' | 'p99') => (get.verdicts[key].valid ? 'stands' : 'NOT JUDGED');
        console.log(
          `| ${round} | ${load * 100}% | ${rate} | ${name} | ${get.p50.toFixed(2)} | ${get.p99.toFixed(2)} | ${lag.p50.toFixed(2)} / ${lag.p99.toFixed(2)} / ${lag.max.toFixed(2)} | ${(result.generatorCpu * 100).toFixed(0)}% | ${verdict('p50')}, ${verdict('p99')} | ${loadAverage()} |`,
        );
      }
    }
  }
} finally {
  await running.stop();
  rmSync(earlier, { recursive: true, force: true });
}
