// How the bench judges a goal from one run (src/goals.ts) and takes its ratios (src/ratios.ts): per round, rounds not
// steady left out and counted, met or missed on the median, not steady or not measured when nothing is left.
import { describe, expect, it } from 'vitest';
import { atLeast, atMost, type Goal, goalsTable, goalWithin, judgeGoal, showGoalFigure } from '../src/goals.js';
import { ratioPerRound, steadyFigures } from '../src/ratios.js';

const at = (value: number, steady = true) => ({ value, steady });
const goal = (figure: Goal['figure'], extra: Partial<Goal> = {}): Goal => ({
  label: 'x / y (>= 0.9x)',
  figure,
  pass: (m) => m >= 0.9,
  ...extra,
});

describe('ratioPerRound', () => {
  it('divides within each round and gives the median (min-max) over the rounds', () => {
    const ratio = ratioPerRound(steadyFigures([90, 100, 120]), steadyFigures([100, 100, 100]));
    expect(ratio).toEqual({ figure: { median: 1, min: 0.9, max: 1.2, n: 3 }, unsteady: 0 });
  });

  it('leaves out and counts a round where either side was not steady', () => {
    const ratio = ratioPerRound([at(50), at(90, false), at(80)], [at(100), at(100), at(80, false)]);
    expect(ratio).toEqual({ figure: { median: 0.5, min: 0.5, max: 0.5, n: 1 }, unsteady: 2 });
  });

  it('pairs only the rounds both sides have, and drops a NaN figure (a peer that did not keep up)', () => {
    const ratio = ratioPerRound(steadyFigures([1, 2, 3]), steadyFigures([Number.NaN, 4]));
    expect(ratio.figure).toEqual({ median: 0.5, min: 0.5, max: 0.5, n: 1 });
  });
});

describe('judgeGoal', () => {
  it('is met or missed on the median', () => {
    expect(judgeGoal(goal(ratioPerRound(steadyFigures([95, 80, 91]), steadyFigures([100, 100, 100]))))).toBe('met');
    expect(judgeGoal(goal(ratioPerRound(steadyFigures([85, 95, 80]), steadyFigures([100, 100, 100]))))).toBe('missed');
  });

  it('says not steady when every round was left out, and not measured when there was none', () => {
    expect(judgeGoal(goal(ratioPerRound([at(1, false)], [at(1)])))).toBe('not steady');
    expect(judgeGoal(goal({ unsteady: 0 }))).toBe('not measured');
  });

  it('judges an every-round goal on its lowest round', () => {
    const figure = ratioPerRound(steadyFigures([0.9, 1.2, 1.3]), steadyFigures([1, 1, 1]));
    expect(judgeGoal(goal(figure, { pass: (m) => m >= 1 }))).toBe('met');
    expect(judgeGoal(goal(figure, { pass: (m) => m >= 1, every: true }))).toBe('missed');
    expect(judgeGoal(goal(figure, { pass: (m) => m >= 0.85, every: true }))).toBe('met');
  });

  it('names the machine a goal needs where this one has fewer cores, whatever the figure', () => {
    const figure = ratioPerRound(steadyFigures([3]), steadyFigures([1]));
    expect(judgeGoal(goal(figure, { cores: 16 }), 2)).toBe('needs a 16-core machine');
    expect(judgeGoal(goal(figure, { cores: 16 }), 16)).toBe('met');
  });

  it('says no yardstick when every round was left out because the server compared against fell behind the rate', () => {
    const behind = goal({ unsteady: 0, behind: 3 });
    expect(judgeGoal(behind)).toBe('no yardstick');
    expect(showGoalFigure(behind)).toBe('n/a; 3 rounds where the yardstick fell behind the rate');
  });

  it('gives no verdict for a figure that is shown, not a goal', () => {
    expect(judgeGoal(goal({ unsteady: 0 }, { pass: null }))).toBe('');
  });
});

describe('the goals table', () => {
  it('shows each figure with its rounds not steady and each verdict, missed in bold', () => {
    const figure = ratioPerRound([at(80), at(1, false)], [at(100), at(1)]);
    expect(showGoalFigure(goal(figure))).toBe('0.80; 1 round not steady');
    expect(
      goalsTable([goal(figure)], 2)
        .split('\n')
        .at(-1),
    ).toBe('| x / y (>= 0.9x) | 0.80; 1 round not steady | **missed** |');
  });
});

describe('goalWithin', () => {
  it('writes the bound into the label and judges by the same bound', () => {
    const figure = (value: number) => ratioPerRound(steadyFigures([value]), steadyFigures([1]));
    const floor = goalWithin('x / y', figure(0.9), atLeast(0.9));
    expect(floor.label).toBe('x / y (>= 0.9x)');
    expect(judgeGoal(floor)).toBe('met');
    expect(judgeGoal(goalWithin('x / y', figure(0.89), atLeast(0.9)))).toBe('missed');
    const ceiling = goalWithin('p99 / floor', figure(1.5), atMost(1.5));
    expect(ceiling.label).toBe('p99 / floor (<= 1.5x)');
    expect(judgeGoal(ceiling)).toBe('met');
    expect(judgeGoal(goalWithin('p99 / floor', figure(1.51), atMost(1.5)))).toBe('missed');
  });

  it('says "in every round" for a goal judged on its lowest round, and keeps the cores it needs', () => {
    const figure = ratioPerRound(steadyFigures([0.9, 1.2]), steadyFigures([1, 1]));
    const every = goalWithin('n / 1', figure, atLeast(1), { every: true });
    expect(every.label).toBe('n / 1 (>= 1x in every round)');
    expect(judgeGoal(every)).toBe('missed');
    expect(judgeGoal(goalWithin('n / 1', figure, atLeast(1), { cores: 16 }), 2)).toBe('needs a 16-core machine');
  });
});
