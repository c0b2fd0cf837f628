// The bench's goals and how each is judged from one run: met, missed, not steady (every round it needs was left out
// by the warm-up rule), not judged (the open-loop generator's lag refused every round), no yardstick (the server
// compared against kept up with the open loop's rate in no round), not measured (the run did not include it) or needs a
// machine with more cores than this one.
import { availableParallelism } from 'node:os';
import type { RoundRatio } from './ratios.js';
import { show } from './stats.js';

export type GoalVerdict =
  | 'met'
  | 'missed'
  | 'not steady'
  | 'not judged'
  | 'no yardstick'
  | 'not measured'
  | `needs a ${number}-core machine`;

export interface Goal {
  label: string;
  /** The figure: a ratio over the rounds (or a plain spread, unsteady 0). */
  figure: RoundRatio;
  /** The test on the median (on the lowest round with `every`); null: shown, not a goal. */
  pass: ((median: number) => boolean) | null;
  /** The goal holds in every round: the test is on the lowest. */
  every?: boolean;
  digits?: number;
  /** The cores the goal needs (the workers goals: 16). */
  cores?: number;
}

/** A goal's bound, written once: its label's `(>= 0.9x)` and its test both come from it. */
export interface Bound {
  readonly at: '>=' | '<=';
  readonly value: number;
}
export const atLeast = (value: number): Bound => ({ at: '>=', value });
export const atMost = (value: number): Bound => ({ at: '<=', value });

/**
 * The goal that `figure` keep within `bound`: the label ends with the bound (`(>= 0.9x)`, or `(>= 1x in every round)`
 * with `every`), and the test is the bound's, on the median (on the lowest round with `every`).
 */
export function goalWithin(
  label: string,
  figure: RoundRatio,
  bound: Bound,
  options: Pick<Goal, 'every' | 'cores'> = {},
): Goal {
  const { at, value } = bound;
  return {
    label: `${label} (${at} ${value}x${options.every ? ' in every round' : ''})`,
    figure,
    pass: at === '>=' ? (m) => m >= value : (m) => m <= value,
    ...options,
  };
}

/** A goal's verdict on this machine (`cores`: its core count). */
export function judgeGoal(goal: Goal, cores = availableParallelism()): GoalVerdict | '' {
  if (goal.cores !== undefined && cores < goal.cores) return `needs a ${goal.cores}-core machine`;
  if (!goal.pass) return '';
  if (!goal.figure.figure) {
    if (goal.figure.unsteady > 0) return 'not steady';
    if (goal.figure.refused) return 'not judged';
    return goal.figure.behind ? 'no yardstick' : 'not measured';
  }
  const { median, min } = goal.figure.figure;
  return goal.pass(goal.every ? min : median) ? 'met' : 'missed';
}

/** The figure as the goals table shows it: median (min-max), with the rounds left out as not steady. */
export function showGoalFigure(goal: Goal): string {
  const { figure, unsteady, refused = 0, behind = 0 } = goal.figure;
  const rounds = (n: number) => `${n} round${n === 1 ? '' : 's'}`;
  return [
    figure ? show(figure, goal.digits ?? 2) : 'n/a',
    ...(unsteady > 0 ? [`${rounds(unsteady)} not steady`] : []),
    ...(refused > 0 ? [`${rounds(refused)} not judged (generator lag)`] : []),
    ...(behind > 0 ? [`${rounds(behind)} where the yardstick fell behind the rate`] : []),
  ].join('; ');
}

/** The goals table in Markdown: each goal, its figure and its verdict (missed in bold). */
export function goalsTable(goals: readonly Goal[], cores = availableParallelism()): string {
  const rows = goals.map((goal) => {
    const verdict = judgeGoal(goal, cores);
    return `| ${goal.label} | ${showGoalFigure(goal)} | ${verdict === 'missed' ? '**missed**' : verdict} |`;
  });
  return ['| goal | median (min-max over rounds) | verdict |', '|---|---:|---|', ...rows].join('\n');
}
