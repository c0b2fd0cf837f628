// The durability check at a run's end: every plant the run created and did not delete (the ledger) is still listed,
// under the run name it was given (which carries its id). A write acknowledged and lost later (a replica that never got
// it, a cache that expires into nothing, a job that undoes it) fails here by name, not by accident of a later request.
import type { Principal } from './http-client.js';
import { listEveryPlant } from './plant-sweep.js';
import type { RunContext } from './run-context.js';
import { idInRunName } from './run-names.js';

export async function checkWritesDurable(run: RunContext): Promise<void> {
  const create = run.contract.byRole('create');
  if (!create) return;
  for (const principal of run.ledger.principals() as Principal[]) {
    if (run.signal.aborted) return;
    const listed = await listEveryPlant(run, run.call, principal);
    if (listed === undefined) {
      run.results.skip(create.operationId, 'writes-durable', `the list of ${principal}'s plants could not be read`);
      continue;
    }
    const present = new Set(listed.map((name) => idInRunName(run.namePrefix, name)));
    for (const id of run.ledger.namedIds(principal)) {
      run.results.record(
        create.operationId,
        'writes-durable',
        present.has(id)
          ? undefined
          : `${principal} created plant ${id} during the run and never deleted it, but it is no longer listed`,
      );
    }
  }
}
