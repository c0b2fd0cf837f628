// Every goal `pnpm bench` judges, from one run: the headline groups' (headline.ts), the closed-loop stage's ratios
// to the peers and between the stores, the workers stage's (which need a 16-core machine) and the cost growth's.
import { type ClosedStage, closedFigure } from './closed-stage.js';
import { atLeast, atMost, type Goal, goalWithin } from './goals.js';
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
    return goalWithin(
      `mixed: serve --workers ${n} / 1, on cores of their own`,
      { ...(figure ? { figure } : {}), unsteady: 0 },
      atLeast(goal),
      { cores: WORKERS_CORES },
    );
  });
  for (const p of workers?.placements ?? []) {
    if (p.workers <= 1 || p.serverCores !== undefined) continue;
    const figure = ratio(p.workers);
    goals.push(
      goalWithin(
        `mixed: serve --workers ${p.workers} / 1, sharing ${workers!.cores} cores with wrk`,
        { ...(figure ? { figure } : {}), unsteady: 0 },
        atLeast(1),
        { every: true },
      ),
    );
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
  return [
    ...(['SQLite', 'PostgreSQL'] as const).flatMap((store) => headlineGoals(store, figures.groups.get(store))),
    goalWithin('get, SQLite defaults / Express peer', closedRatio(SQLITE, EXPRESS, 'get'), atLeast(3)),
    goalWithin('create, SQLite defaults / Express peer', closedRatio(SQLITE, EXPRESS, 'create'), atLeast(3)),
    goalWithin(
      'create, SQLite tuned, group commit / commit per request',
      closedRatio(SQLITE_TUNED, PER_REQUEST, 'create'),
      atLeast(4),
    ),
    goalWithin('mixed, SQLite defaults / Express peer', closedRatio(SQLITE, EXPRESS, 'mixed'), atLeast(3)),
    goalWithin("mixed, SQLite defaults p99 / Express peer's", closedRatio(SQLITE, EXPRESS, 'mixed', true), atMost(0.5)),
    goalWithin(
      'mixed, SQLite tuned with one webhook subscription / none',
      closedRatio(WEBHOOK_ON, SQLITE_TUNED, 'mixed'),
      atLeast(0.95),
    ),
    goalWithin('get, PostgreSQL / SQLite, defaults', closedRatio(POSTGRES, SQLITE, 'get'), atLeast(0.7)),
    goalWithin('create, PostgreSQL / SQLite, defaults', closedRatio(POSTGRES, SQLITE, 'create'), atLeast(0.5)),
    goalWithin('mixed, PostgreSQL / SQLite, defaults', closedRatio(POSTGRES, SQLITE, 'mixed'), atLeast(0.6)),
    goalWithin('mixed, PostgreSQL defaults / naive Fastify + pg', closedRatio(POSTGRES, NAIVE, 'mixed'), atLeast(2)),
    ...workersGoals(figures),
    ...LAYOUTS.flatMap((layout) =>
      figures.stores.flatMap((engine) =>
        (['get', 'create'] as const).map((kind) =>
          goalWithin(
            `${engine}, ${layout}: ${kind} p50 at 1M / 1k plants`,
            ratioPerRound(
              growthFigure(figures.growth, `${engine}|${layout}|1000000`, kind),
              growthFigure(figures.growth, `${engine}|${layout}|1000`, kind),
            ),
            atMost(1.5),
          ),
        ),
      ),
    ),
  ];
}
