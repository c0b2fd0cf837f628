// The headline comparisons, measured side by side: every server of one group (plant-store on its defaults and tuned,
// the floor, bare Fastify, the Express peer) is up at once, each pinned to core 0 (an idle one costs nothing) and
// warmed up by the one rule (warm-up.ts), then each is measured in turn, the order rotating by one per round, so
// whatever else the machine does lands on all of them alike; ratios are taken within a round (ratios.ts).
// Every round starts its servers afresh and stops them after: one process of a build differs from the next (two
// processes of one build and configuration, loaded at once on one core, differed by about 1.17x in CPU a request,
// steadily, read through a third process; one process over rounds moves by a few percent), so rounds on the same processes
// would sample one draw of each and call it the server's.
// Each round: the hot read (wrk get), then the mixed workload where a side has it, each warmed up just before it is
// measured, then the open loop at the same absolute rates for every side: shares of bare Fastify's hot read that round.
import { type OpenLoopResult, openLoop } from './open-loop.js';
import type { RoundFigure, RoundRatio } from './ratios.js';
import { judge } from './send-schedule.js';
import { Samples, spread } from './stats.js';
import type { Running, Target } from './targets.js';
import { cpuTrail, steadiness, warmUntilSteady } from './warm-up.js';
import { type WrkResult, wrkAgainst } from './wrk.js';

export type SideScenario = 'get' | 'mixed';

export interface Side {
  name: string;
  /** The target, or how to make it from the sides started before it (the floor records another side's answer). */
  target: Target | ((started: Map<string, Running>) => Target);
  scenarios: SideScenario[];
  /** Measured open loop at the group's rates (on the hot read). */
  open: boolean;
}

export type ClosedRun = WrkResult & { steady: boolean };
export type OpenRun = OpenLoopResult & { rate: number; steady: boolean };

export interface Group {
  name: string;
  sides: Side[];
  /** `side|scenario`: one run per round. */
  closed: Samples<ClosedRun>;
  /** `side|load`: one run per round. */
  open: Samples<OpenRun>;
}

/** The side whose hot read sets the open loop's rates. */
export interface GroupOptions {
  name: string;
  sides: Side[];
  rateSide: string;
  loads: readonly number[];
  rounds: number;
  seconds: number;
  openSeconds: number;
  warmUpSeconds: number;
  connections: number;
  port: number;
  newBase: () => number;
  log: (line: string) => void;
}

/** `items` rotated left by `by`: each round starts one later. */
export const rotate = <T>(items: readonly T[], by: number): T[] => {
  const at = items.length === 0 ? 0 : by % items.length;
  return [...items.slice(at), ...items.slice(0, at)];
};

export async function sideBySide(options: GroupOptions): Promise<Group> {
  const group: Group = { name: options.name, sides: options.sides, closed: new Samples(), open: new Samples() };
  for (let round = 0; round < options.rounds; round++) await measureRound(options, group, round);
  return group;
}

/** One round: every side started, warmed up, measured in turn (rotated by `round`), and stopped. */
async function measureRound(options: GroupOptions, group: Group, round: number): Promise<void> {
  const started = new Map<string, Running>();
  try {
    for (const [i, side] of options.sides.entries()) {
      const target = typeof side.target === 'function' ? side.target(started) : side.target;
      started.set(side.name, await target.start(options.port + i));
    }
    const run = (side: Side, scenario: SideScenario, seconds: number) =>
      wrkAgainst(started.get(side.name)!, {
        scenario,
        base: options.newBase(),
        seconds,
        connections: options.connections,
      });
    // One scenario after the other, each warmed up on every side just before it is measured: the hot read's figures
    // (peak RSS among them) are of servers that have served the same load, the hot read alone, as bare Fastify has,
    // not of plant-store after a mixed warm-up had filled its page cache.
    const steady = new Map<string, boolean>();
    for (const scenario of ['get', 'mixed'] as const) {
      const sides = options.sides.filter((s) => s.scenarios.includes(scenario));
      for (const side of sides) {
        const warm = await warmUntilSteady(() => run(side, scenario, options.warmUpSeconds));
        steady.set(`${side.name}|${scenario}`, warm.steady);
        options.log(
          `  ${options.name} round ${round + 1}: ${side.name}, ${scenario} warm-up: ${warm.runs.length} runs of ${options.warmUpSeconds} s, ${cpuTrail(warm)}${steadiness(warm)}`,
        );
      }
      for (const side of rotate(sides, round)) {
        const result = await run(side, scenario, options.seconds);
        group.closed.add(`${side.name}|${scenario}`, {
          ...result,
          steady: steady.get(`${side.name}|${scenario}`)!,
        });
        options.log(
          `  ${options.name} round ${round + 1}: ${side.name}, ${scenario}: ${result.requestsPerSec.toFixed(0)} req/s, ${result.cpuUsPerRequest.toFixed(1)} us CPU/request, p99 ${result.p99Ms} ms, non-2xx ${result.non2xx}, RSS ${result.maxRssMb} MB`,
        );
      }
    }
    const capacity = group.closed.get(`${options.rateSide}|get`).at(-1)?.requestsPerSec;
    if (capacity === undefined) return;
    for (const load of options.loads) {
      const rate = Math.round(capacity * load);
      for (const side of rotate(
        options.sides.filter((s) => s.open),
        round,
      )) {
        const server = started.get(side.name)!;
        const result = await openLoop({
          url: server.url,
          rate,
          seconds: options.openSeconds,
          kind: 'get',
          tokens: [server.token],
          base: options.newBase(),
          serverPid: server.pid,
        });
        group.open.add(`${side.name}|${load}`, { ...result, rate, steady: steady.get(`${side.name}|get`)! });
        options.log(
          `  ${options.name} round ${round + 1}: ${side.name}, open loop at ${rate}/s (${load * 100}%): p50 ${result.get.p50.toFixed(2)} ms, p99 ${result.get.p99.toFixed(2)} ms (generator lag p99 ${result.lag.p99.toFixed(2)})${result.get.verdicts.p99.valid ? '' : ' NOT JUDGED'}, achieved ${result.achievedRate.toFixed(0)}/s, RSS ${result.maxRssMb} MB`,
        );
      }
    }
  } finally {
    await Promise.all([...started.values()].map((server) => server.stop()));
  }
}

/** A closed-loop figure of one side per round, with its warm-up's steadiness. */
export const closedFigures = (group: Group, side: string, scenario: SideScenario, pick: (run: WrkResult) => number) =>
  group.closed.get(`${side}|${scenario}`).map((run): RoundFigure => ({ value: pick(run), steady: run.steady }));

/** The share of the intended rate a run must achieve to count as keeping up. */
export const KEEPS_UP = 0.95;

/**
 * Side A's open-loop p99 over side B's, per round, against the goal `factor`: a round counts where both warm-ups
 * were steady, B kept up with the rate (else it is no yardstick) and A's p99 stands by the generator's lag rule
 * (send-schedule.ts, judge) with B's p99 times `factor` as its goal; a round A's lag refused is counted apart.
 */
export function openRatio(group: Group, a: string, b: string, load: number, factor: number): RoundRatio {
  const [as, bs] = [group.open.get(`${a}|${load}`), group.open.get(`${b}|${load}`)];
  const ratios: number[] = [];
  let unsteady = 0;
  let refused = 0;
  let behind = 0;
  for (let i = 0; i < Math.min(as.length, bs.length); i++) {
    const [x, y] = [as[i]!, bs[i]!];
    if (!x.steady || !y.steady) unsteady++;
    else if (y.achievedRate < KEEPS_UP * y.rate) behind++;
    else if (!judge(x.get.p99, x.lag.p99, factor * y.get.p99).valid) refused++;
    else ratios.push(x.get.p99 / y.get.p99);
  }
  const figure = spread(ratios);
  return { ...(figure ? { figure } : {}), unsteady, ...(refused ? { refused } : {}), ...(behind ? { behind } : {}) };
}
