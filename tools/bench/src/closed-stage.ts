// The closed-loop stage: each round starts every target in turn (the order rotating by one per round) on a fresh
// database and runs its wrk scenarios, each just after a warm-up on that scenario by the one rule (warm-up.ts); a run
// whose warm-up did not end steady is kept, marked, and left out of every ratio.
import { deleteSeconds } from './delete-run.js';
import type { RoundFigure } from './ratios.js';
import { rotate } from './side-by-side.js';
import { Samples } from './stats.js';
import type { Running, Target } from './targets.js';
import { cpuTrail, steadiness, WARM_UP_MAX_RUNS, warmUntilSteady } from './warm-up.js';
import { type Scenario, type WrkResult, wrkAgainst } from './wrk.js';

export type ClosedResult = WrkResult & { steady: boolean };

export interface ClosedOptions {
  targets: Target[];
  rounds: number;
  seconds: number;
  deleteSeconds: number;
  warmUpSeconds: number;
  connections: number;
  nextPort: () => number;
  newBase: () => number;
  log: (line: string) => void;
  /** Called with each running target once its scenarios are done (the SDK overhead runs there). */
  after?: (target: Target, running: Running, round: number) => Promise<void>;
}

/** The ids a create warm-up made: base + 1 onwards, `runs` of them (a run's requests, with a gap between runs). */
interface WarmUpIds {
  base: number;
  runs: number;
}

/**
 * Warms a running target up on one scenario just before its measured run, unrecorded. The create warm-up's runs
 * take consecutive ids; the delete warm-up deletes them in runs half as long, no more runs than there were, so the
 * measured delete still finds every plant of the measured create run.
 */
async function warmUpOn(
  options: ClosedOptions,
  running: Running,
  scenario: Scenario,
  createWarmUp: WarmUpIds | undefined,
): Promise<{ ids?: WarmUpIds; seconds: number; rate: number; steady: boolean; summary: string }> {
  if (scenario === 'delete' && !createWarmUp)
    return { seconds: 0, rate: Number.NaN, steady: false, summary: 'none (no create warm-up to delete)' };
  const first = scenario === 'delete' ? createWarmUp!.base : options.newBase();
  let next = first;
  const runSeconds = scenario === 'delete' ? options.warmUpSeconds / 2 : options.warmUpSeconds;
  const warm = await warmUntilSteady(
    async () => {
      const result = await wrkAgainst(running, {
        scenario,
        base: scenario === 'create' || scenario === 'delete' ? next : options.newBase(),
        seconds: runSeconds,
        connections: options.connections,
      });
      // Past the answered requests and one more in flight per connection, which may have been sent.
      next += result.requests + options.connections;
      return result;
    },
    { maxRuns: scenario === 'delete' ? Math.min(WARM_UP_MAX_RUNS, createWarmUp!.runs) : WARM_UP_MAX_RUNS },
  );
  return {
    ...(scenario === 'create' ? { ids: { base: first, runs: warm.runs.length } } : {}),
    seconds: warm.runs.length * runSeconds,
    rate: warm.runs.at(-1)!.requestsPerSec,
    steady: warm.steady,
    summary: `${warm.runs.length} runs of ${runSeconds} s, ${cpuTrail(warm)}, non-2xx ${warm.runs.reduce((sum, r) => sum + r.non2xx, 0)}${steadiness(warm)}`,
  };
}

export interface ClosedStage {
  /** `target|scenario`: one result per round. */
  runs: Samples<ClosedResult>;
  /** Seconds spent warming up, for the report: what the rule costs the run. */
  warmUpSeconds: number;
}

export async function closedStage(options: ClosedOptions): Promise<ClosedStage> {
  const stage: ClosedStage = { runs: new Samples(), warmUpSeconds: 0 };
  for (let round = 0; round < options.rounds; round++) {
    for (const target of rotate(options.targets, round)) {
      const running = await target.start(options.nextPort());
      options.log(
        `round ${round + 1}/${options.rounds}: ${target.name} listening at ${running.url}, pid ${running.pid}`,
      );
      try {
        let createBase = 0;
        let created = 0;
        let createWarmUp: WarmUpIds | undefined;
        for (const scenario of target.scenarios) {
          const warm = await warmUpOn(options, running, scenario, createWarmUp);
          if (scenario === 'create') createWarmUp = warm.ids;
          stage.warmUpSeconds += warm.seconds;
          options.log(`  ${scenario} warm-up: ${warm.summary}`);
          // Deletes remove what this round's create run made; the create run always precedes them.
          const base = scenario === 'delete' ? createBase : options.newBase();
          if (scenario === 'create') createBase = base;
          const result = await wrkAgainst(running, {
            scenario,
            base,
            seconds: scenario === 'delete' ? deleteSeconds(options.deleteSeconds, created, warm.rate) : options.seconds,
            connections: options.connections,
          });
          if (scenario === 'create') created = result.requests - result.non2xx;
          stage.runs.add(`${target.name}|${scenario}`, { ...result, steady: warm.steady });
          options.log(
            `  ${scenario}: ${result.requestsPerSec.toFixed(0)} req/s, ${result.cpuUsPerRequest.toFixed(1)} us CPU/request, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, non-2xx ${result.non2xx}, RSS ${result.maxRssMb} MB${warm.steady ? '' : ' (not steady)'}`,
          );
        }
        await options.after?.(target, running, round);
      } finally {
        await running.stop();
      }
    }
  }
  return stage;
}

/** A target's figure on a scenario per round, with its warm-up's steadiness, for ratios.ts. */
export const closedFigure = (
  stage: ClosedStage,
  target: string,
  scenario: Scenario,
  pick: (run: WrkResult) => number = (run) => run.requestsPerSec,
): RoundFigure[] => stage.runs.get(`${target}|${scenario}`).map((run) => ({ value: pick(run), steady: run.steady }));
