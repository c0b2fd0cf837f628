// Ratios as every table and goal takes them: A over B within one round (both measured side by side there), then the
// median (min-max) over the rounds. A round where either figure is not steady, or did not stand, is left out and
// counted, never averaged in.
import { type Spread, spread } from './stats.js';

/** One round's figure and whether it may enter a ratio (its warm-up was steady, its run's figure stood). */
export interface RoundFigure {
  value: number;
  steady: boolean;
}

export interface RoundRatio {
  /** The ratios of the rounds where both figures were steady; undefined when there was none. */
  figure?: Spread;
  /** Rounds left out because a figure was not steady. */
  unsteady: number;
  /** Rounds left out because the open-loop generator's lag refused the figure (send-schedule.ts, judge). */
  refused?: number;
  /** Rounds left out because the yardstick did not keep up with the open loop's rate (side-by-side.ts, openRatio). */
  behind?: number;
}

/** A over B per round (rounds paired by index), summarised over the rounds where both were steady. */
export function ratioPerRound(a: readonly RoundFigure[], b: readonly RoundFigure[]): RoundRatio {
  const rounds = Math.min(a.length, b.length);
  const ratios: number[] = [];
  let unsteady = 0;
  for (let i = 0; i < rounds; i++) {
    const [x, y] = [a[i]!, b[i]!];
    if (!x.steady || !y.steady) unsteady++;
    else ratios.push(x.value / y.value);
  }
  const figure = spread(ratios);
  return { ...(figure ? { figure } : {}), unsteady };
}

/** Figures of runs that all count (an outside A/B's: no warm-up rule to fail). */
export const steadyFigures = (values: readonly number[]): RoundFigure[] =>
  values.map((value) => ({ value, steady: true }));
