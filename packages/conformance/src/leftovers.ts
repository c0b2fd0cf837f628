// What an earlier run with the same seed left behind (it was interrupted hard, or its deployment kept what it deleted):
// plants named by a run of this seed, whose ids are in this run's block. They would make this run's creates conflict (a
// 409 for "a new id"), so the run deletes them before it starts, and says so.
import { storedIdCandidates } from './cleanup.js';
import type { Principal } from './http-client.js';
import { listEveryPlant } from './plant-sweep.js';
import type { RunContext } from './run-context.js';
import { idInRunNameOfSeed } from './run-names.js';

export interface LeftoverOutcome {
  /** Plants of an earlier run with this seed, found in the block. */
  found: number;
  deleted: number;
  /** Plants of an earlier run the run could not delete, by the id their names carry. */
  kept: { principal: Principal; id: bigint }[];
}

/** Deletes, per writing principal, the plants an earlier run with this seed left in the block. */
export async function clearLeftovers(run: RunContext): Promise<LeftoverOutcome> {
  const outcome: LeftoverOutcome = { found: 0, deleted: 0, kept: [] };
  const remove = run.contract.byRole('delete');
  if (!remove || !run.contract.byRole('create') || run.options.readOnly) return outcome;
  const principals: Principal[] = ['token', ...(run.options.secondToken ? (['second-token'] as const) : [])];
  for (const principal of principals) {
    // Pages of the default size: the URL of the largest page is the one the isolation phases watch a cache serve.
    const names = (await listEveryPlant(run, run.call, principal, { largestFirst: false })) ?? [];
    for (const name of names) {
      const id = idInRunNameOfSeed(run.options.seed, name);
      if (id === undefined) continue;
      outcome.found++;
      // Where the earlier run's deployment rounded ids, the plant is under what a double made of the id in its name.
      let deleted = false;
      for (const candidate of storedIdCandidates(id).filter((stored) => run.range.has(stored))) {
        const answer = await run.call(
          remove,
          { method: remove.method, target: remove.path.replace(/\{[^}]+\}/, String(candidate)), principal },
          {
            statuses: [remove.successStatus, 404],
            because: `an earlier run with seed ${run.options.seed} left a plant named for ${id}`,
          },
        );
        deleted = (answer?.exchange.status ?? 0) >= 200 && (answer?.exchange.status ?? 0) < 300;
        if (deleted) break;
      }
      if (deleted) outcome.deleted++;
      else outcome.kept.push({ principal, id });
    }
  }
  return outcome;
}

/** The report's line on the leftovers; undefined when there were none. */
export function leftoverLine(outcome: LeftoverOutcome, seed: number): string | undefined {
  if (outcome.found === 0) return undefined;
  const parts = [
    `found ${outcome.found} plants an earlier run with seed ${seed} left in its ids; deleted ${outcome.deleted} of them first`,
  ];
  if (outcome.kept.length > 0) {
    parts.push(
      `${outcome.kept.length} could not be deleted (${outcome.kept
        .slice(0, 3)
        .map((kept) => `${kept.principal} ${kept.id}`)
        .join(', ')}): creates of their ids will conflict; another --seed picks another block`,
    );
  }
  return `leftovers: ${parts.join('; ')}.`;
}
