// Deleting what the run created, at the end of a run and after Ctrl-C: first every id the ledger holds, per principal;
// then every plant still listed under the run's name prefix (run-names.ts), which a deployment that mangled the ids it
// was sent (rounded them to doubles, say) stored under another id: its name carries the id as sent, and the ids a
// double would have made of it (or of `<id>.5`) are tried too, within the run's reserved block only. Its requests are
// checked like the others but ignore the interruption (a second Ctrl-C ends the process instead), and a 404 is no
// failure of the delete: it is a miss of the cleanup's, whose cost (a plant left behind) the `cleanup` check reports.
import type { Principal } from './http-client.js';
import { listEveryPlant } from './plant-sweep.js';
import { callerFor, type RunContext } from './run-context.js';
import { idInRunName } from './run-names.js';

export interface CleanupOutcome {
  deleted: number;
  /** Plants left behind, by principal: the report names them so that someone can delete them by hand. */
  left: { principal: Principal; id: bigint }[];
}

const isSuccess = (status: number) => status >= 200 && status < 300;

/** The delete's answer to an id it does not hold: the cleanup's miss (the plant is gone, or stored under another id). */
const NOT_FOUND = 404;

/**
 * The ids a plant the run named for `id` may be stored under, `id` first: what a deployment that read the JSON number
 * as a double stored, the double's exact value or its shortest decimal (a proxy that wrote the double back out as
 * JSON: 9007199254740993 -> 9007199254740992, 3163243080784249244 -> 3163243080784249300), for `id` and for `<id>.5`
 * (a wrong form the run sends), which rounds away from `id`'s double where `id` lies halfway between two doubles.
 */
export function storedIdCandidates(id: bigint): bigint[] {
  const doubles = [Number(id), Number(`${id}.5`)];
  return [...new Set([id, ...doubles.flatMap((double) => [BigInt(double), BigInt(String(double))])])];
}

export async function cleanUp(run: RunContext): Promise<CleanupOutcome> {
  const remove = run.contract.byRole('delete');
  const outcome: CleanupOutcome = { deleted: 0, left: [] };
  if (!remove) return outcome;
  const call = callerFor(run.client, run.results, new AbortController().signal);
  const deleteId = async (principal: Principal, id: bigint, because: string) => {
    const target = remove.path.replace(/\{[^}]+\}/, String(id));
    // A miss is expected of a cleanup that guesses where a plant was stored; an answer that breaks the contract (a
    // 5xx, a status the operation does not declare, another status, a wrong Error body) is still the delete's failure.
    const answer = await call(
      remove,
      { method: remove.method, target, principal },
      { statuses: [remove.successStatus, NOT_FOUND], because: `cleanup: ${because}` },
    );
    return answer?.exchange.status ?? 0;
  };
  // The plants of this run `principal` still has, by the id their names carry; undefined when the list cannot be read.
  const listed = async (principal: Principal): Promise<bigint[] | undefined> =>
    (await listEveryPlant(run, call, principal))?.flatMap((name) => {
      const id = idInRunName(run.namePrefix, name);
      return id === undefined ? [] : [id];
    });

  const create = run.contract.byRole('create');
  const sentCreates = create !== undefined && (run.client.methods.get(create.method) ?? 0) > 0;
  const principals = new Set<Principal>(['token', ...(run.options.secondToken ? (['second-token'] as const) : [])]);
  for (const principal of run.ledger.principals() as Principal[]) principals.add(principal);
  for (const principal of principals) {
    const failed: bigint[] = [];
    for (const id of run.ledger.ids(principal)) {
      const status = await deleteId(principal, id, 'the run created this plant');
      if (isSuccess(status)) outcome.deleted++;
      // Not deleted, or a 404: already gone (another check failed on it) or stored under another id, which the sweep
      // finds by name; where it cannot list, the report names the id as possibly left behind.
      else failed.push(id);
      run.ledger.remove(principal, id);
    }
    // A run that sent no create (read-only, or stopped at the token check) has nothing to find.
    if (!sentCreates) continue;
    const leftovers = await listed(principal);
    for (const id of leftovers ?? []) {
      const candidates = storedIdCandidates(id).filter((candidate) => run.range.has(candidate));
      for (const candidate of candidates) {
        if (isSuccess(await deleteId(principal, candidate, `a plant of this run is still listed (named for ${id})`))) {
          outcome.deleted++;
          break;
        }
      }
    }
    // What is still listed under the run's prefix is left; where the list cannot be read, what could not be deleted
    // (a 404 included: it may be stored under an id the run does not know).
    const still = leftovers?.length === 0 ? [] : await listed(principal);
    for (const id of still ?? [...new Set([...failed, ...(leftovers ?? [])])]) outcome.left.push({ principal, id });
  }
  run.results.record(
    remove.operationId,
    'cleanup',
    outcome.left.length
      ? `${outcome.left.length} plants the run created could not be deleted (delete them by hand): ${outcome.left
          .slice(0, 5)
          .map((l) => `${l.principal} ${l.id}`)
          .join(', ')}`
      : undefined,
  );
  return outcome;
}
