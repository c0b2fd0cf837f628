// Deleting what the run created: every id the ledger holds, per principal, at the end of a run and after Ctrl-C.
// Its requests are checked like the others but ignore the interruption (a second Ctrl-C ends the process instead).
import type { Principal } from './http-client.js';
import { callerFor, type RunContext } from './run-context.js';

export interface CleanupOutcome {
  deleted: number;
  /** Ids left behind, by principal: the report names them so that someone can delete them by hand. */
  left: { principal: Principal; id: bigint }[];
}

export async function cleanUp(run: RunContext): Promise<CleanupOutcome> {
  const remove = run.contract.byRole('delete');
  const outcome: CleanupOutcome = { deleted: 0, left: [] };
  if (!remove) return outcome;
  const call = callerFor(run.client, run.results, new AbortController().signal);
  for (const principal of run.ledger.principals() as Principal[]) {
    for (const id of run.ledger.ids(principal)) {
      const target = remove.path.replace(/\{[^}]+\}/, String(id));
      const answer = await call(
        remove,
        { method: remove.method, target, principal },
        { statuses: [remove.successStatus], because: 'the run created this plant' },
      );
      const status = answer?.exchange.status ?? 0;
      if (status >= 200 && status < 300) {
        outcome.deleted++;
        run.ledger.remove(principal, id);
      } else if (status === 404) {
        // Already gone (another check failed on it); nothing is left behind.
        run.ledger.remove(principal, id);
      } else {
        outcome.left.push({ principal, id });
      }
    }
  }
  run.results.record(
    remove.operationId,
    'cleanup',
    outcome.left.length
      ? `${outcome.left.length} plants the run created could not be deleted: ${outcome.left
          .slice(0, 5)
          .map((l) => `${l.principal} ${l.id}`)
          .join(', ')}`
      : undefined,
  );
  return outcome;
}
