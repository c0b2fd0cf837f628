// The `etag-per-principal` check: conditional lists as the contract documents them, per principal. The ETag of A's
// page brings A a 304 while the page is current (and `*` always does) and a 200 after A's next create; sent by B, it
// never brings B a 304 or A's plants. A cache that answers If-None-Match from the ETag it saw last for the URL fails it.
import type { Exchange, Principal } from './http-client.js';
import { createPlant, firstPageTarget, plantName, plantOperations, sharedRunPlants, slotId } from './phase-support.js';
import type { RunContext } from './run-context.js';

export async function runConditionalPhase(run: RunContext): Promise<void> {
  const operations = plantOperations(run);
  if (!operations) return;
  const { list } = operations;
  const target = firstPageTarget(list);
  const check = (problem: string | undefined, exchanges: Parameters<typeof run.results.record>[3]) =>
    run.results.record(list.operationId, 'etag-per-principal', problem, exchanges);
  const page = (principal: Principal, ifNoneMatch: string | undefined, statuses: number[], because: string) =>
    run.call(
      list,
      {
        method: 'GET',
        target,
        principal,
        ...(ifNoneMatch === undefined ? {} : { headers: { 'if-none-match': ifNoneMatch } }),
      },
      { statuses, because },
    );
  const plants = [0, 1].map((index) => ({
    id: slotId(run, 'conditional', index),
    name: plantName(run, 'conditional', index),
  }));
  const first = await createPlant(run, operations, 'token', plants[0]!);
  if (first?.exchange.status !== operations.create.successStatus) return;

  const fresh = await page('token', undefined, [200], 'no If-None-Match');
  if (fresh?.exchange.status !== 200) return;
  const etag = fresh.exchange.headers.etag;
  if (etag === undefined) {
    check(`GET ${target} answered 200 without the ETag the contract's conditional lists promise`, [fresh.exchange]);
    return;
  }
  for (const sent of [etag, '*']) {
    const again = await page('token', sent, [200, 304], 'If-None-Match names the current page');
    if (!again) continue;
    // A 200 whose ETag is no longer the one sent is right: a write of the principal's (another run's, say) came between.
    const moved = sent !== '*' && again.exchange.status === 200 && again.exchange.headers.etag !== sent;
    check(
      again.exchange.status === 304 || moved
        ? undefined
        : `If-None-Match: ${sent} on the current page answered ${again.exchange.status}, not 304`,
      [fresh.exchange, again.exchange],
    );
  }

  /** B sends A's ETag for the same URL: a 304 only if B's own page has that very ETag, never A's plants. */
  const crossed = async (moment: string, etagOfA: string, pageOfA: Exchange, bodyOfA: unknown) => {
    if (!run.options.secondToken) return;
    const theirs = await page('second-token', etagOfA, [200, 304], "the ETag is of another principal's page");
    if (!theirs) return;
    let problem: string | undefined;
    if (theirs.exchange.status === 304) {
      const own = await page('second-token', undefined, [200], 'no If-None-Match');
      if (own && own.exchange.headers.etag !== etagOfA) {
        problem = `${moment}, the second principal sent the first principal's ETag ${etagOfA} and got 304, though its own page's ETag is ${own.exchange.headers.etag ?? '(none)'}`;
      }
    } else {
      const leaked = sharedRunPlants(run, bodyOfA, theirs.body);
      if (leaked.length) {
        problem = `${moment}, the second principal sent the first principal's ETag and got the first principal's plants (${leaked.slice(0, 3).join(', ')})`;
      }
    }
    check(problem, [pageOfA, theirs.exchange]);
  };
  await crossed('While the page was current', etag, fresh.exchange, fresh.body);

  const second = await createPlant(run, operations, 'token', plants[1]!);
  if (second?.exchange.status !== operations.create.successStatus) return;
  const changed = await page('token', etag, [200], 'a create changes the ETag');
  if (!changed) return;
  check(
    changed.exchange.status === 200
      ? undefined
      : `after a create, If-None-Match: ${etag} answered ${changed.exchange.status}: the ETag did not change`,
    [fresh.exchange, second.exchange, changed.exchange],
  );
  const newer = changed.exchange.headers.etag;
  if (changed.exchange.status === 200 && newer !== undefined) {
    await crossed("Right after the first principal's create", newer, changed.exchange, changed.body);
  }
}
