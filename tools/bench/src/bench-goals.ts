// Every goal `pnpm bench` judges, from one run: the headline groups' (headline.ts), the closed-loop stage's ratios
// to the peers and between the stores, the workers stage's (which need a 16-core machine) and the cost growth's.
import { type ClosedStage, closedFigure } from './closed-stage.js';
import type { Goal } from './goals.js';
import { headlineGoals, type Store } from './headline.js';
import type { OpenLoopResult } from './open-loop.js';
import { type RoundFigure, ratioPerRound } from './ratios.js';
import { LAYOUTS } from './scale.js';
import type { Group } from './side-by-side.js';
import type { Samples } from './stats.js';
import { EXPRESS, NAIVE, PER_REQUEST, POSTGRES, SQLITE, SQLITE_TUNED, WEBHOOK_ON } from './targets.js';
import { ratioToOne } from './workers-plan.js';
import { type WorkersStage, workersRounds } from './workers-stage.js';

export interface RunFigures {
  groups: Map<Store, Group>;
  closed: ClosedStage;
  growth: Samples<OpenLoopResult>;
  workers?: WorkersStage;
  rounds: number;
  stores: Store[];
}

/** The workers goals: N workers on N cores of their own against one worker, mixed (median of per-round ratios). */
const WORKERS_GOALS = new Map([
  [2, 1.6],
  [8, 5],
]);
const WORKERS_CORES = 16;

function workersGoals(figures: RunFigures): Goal[] {
  const { workers } = figures;
  const ratio = (n: number) => (workers ? ratioToOne(workersRounds(workers, figures.rounds), n) : undefined);
  const goals: Goal[] = [...WORKERS_GOALS].map(([n, goal]) => {
    const placed = workers?.placements.find((p) => p.workers === n && p.serverCores !== undefined);
    const figure = placed ? ratio(n) : undefined;
    return {
      label: `mixed: serve --workers ${n} / 1, on cores of their own (>= ${goal}x)`,
      figure: { ...(figure ? { figure } : {}), unsteady: 0 },
      pass: (m) => m >= goal,
      cores: WORKERS_CORES,
    };
  });
  for (const p of workers?.placements ?? []) {
    if (p.workers <= 1 || p.serverCores !== undefined) continue;
    const figure = ratio(p.workers);
    goals.push({
      label: `mixed: serve --workers ${p.workers} / 1, sharing ${workers!.cores} cores with wrk (>= 1x in every round)`,
      figure: { ...(figure ? { figure } : {}), unsteady: 0 },
      pass: (m) => m >= 1,
      every: true,
    });
  }
  return goals;
}

/** A cost-growth figure per round that stood by the generator's lag rule (send-schedule.ts, judge). */
const growthFigure = (growth: Samples<OpenLoopResult>, key: string, kind: 'get' | 'create'): RoundFigure[] =>
  growth.get(key).map((r) => ({ value: r[kind].p50, steady: r[kind].verdicts.p50.valid }));

export function benchGoals(figures: RunFigures): Goal[] {
  const { closed } = figures;
  const closedRatio = (a: string, b: string, scenario: 'get' | 'create' | 'mixed', p99 = false) =>
    ratioPerRound(
      closedFigure(closed, a, scenario, p99 ? (r) => r.p99Ms : undefined),
      closedFigure(closed, b, scenario, p99 ? (r) => r.p99Ms : undefined),
    );
  const goal = (label: string, figure: Goal['figure'], pass: Goal['pass']): Goal => ({ label, figure, pass });
  return [
    ...(['SQLite', 'PostgreSQL'] as const).flatMap((store) => headlineGoals(store, figures.groups.get(store))),
    goal('get, SQLite defaults / Express peer (>= 3x)', closedRatio(SQLITE, EXPRESS, 'get'), (m) => m >= 3),
    goal('create, SQLite defaults / Express peer (>= 3x)', closedRatio(SQLITE, EXPRESS, 'create'), (m) => m >= 3),
    goal(
      'create, SQLite tuned, group commit / commit per request (>= 4x)',
      closedRatio(SQLITE_TUNED, PER_REQUEST, 'create'),
      (m) => m >= 4,
    ),
    goal('mixed, SQLite defaults / Express peer (>= 3x)', closedRatio(SQLITE, EXPRESS, 'mixed'), (m) => m >= 3),
    goal(
      "mixed, SQLite defaults p99 / Express peer's (<= 0.5x)",
      closedRatio(SQLITE, EXPRESS, 'mixed', true),
      (m) => m <= 0.5,
    ),
    goal(
      'mixed, SQLite tuned with one webhook subscription / none (>= 0.95x)',
      closedRatio(WEBHOOK_ON, SQLITE_TUNED, 'mixed'),
      (m) => m >= 0.95,
    ),
    goal('get, PostgreSQL / SQLite, defaults (>= 0.7x)', closedRatio(POSTGRES, SQLITE, 'get'), (m) => m >= 0.7),
    goal('create, PostgreSQL / SQLite, defaults (>= 0.5x)', closedRatio(POSTGRES, SQLITE, 'create'), (m) => m >= 0.5),
    goal('mixed, PostgreSQL / SQLite, defaults (>= 0.6x)', closedRatio(POSTGRES, SQLITE, 'mixed'), (m) => m >= 0.6),
    goal(
      'mixed, PostgreSQL defaults / naive Fastify + pg (>= 2x)',
      closedRatio(POSTGRES, NAIVE, 'mixed'),
      (m) => m >= 2,
    ),
    ...workersGoals(figures),
    ...LAYOUTS.flatMap((layout) =>
      figures.stores.flatMap((engine) =>
        (['get', 'create'] as const).map((kind) =>
          goal(
            `${engine}, ${layout}: ${kind} p50 at 1M / 1k plants (<= 1.5x)`,
            ratioPerRound(
              growthFigure(figures.growth, `${engine}|${layout}|1000000`, kind),
              growthFigure(figures.growth, `${engine}|${layout}|1000`, kind),
            ),
            (m) => m <= 1.5,
          ),
        ),
      ),
    ),
  ];
}
