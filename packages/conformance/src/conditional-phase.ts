// The `etag-per-principal` check: conditional lists as the contract documents them, per principal. The ETag of A's
// page brings A a 304 while the page is current (and `*` always does) and a 200 after A's next create; sent by B, it
// never brings B a 304 or A's plants. A cache that answers If-None-Match from the ETag it saw last for the URL fails it.
import type { Principal } from './http-client.js';
import { createPlant, firstPageTarget, listedNames, plantName, plantOperations, slotId } from './phase-support.js';
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
    const again = await page('token', sent, [304], 'If-None-Match names the current page');
    if (again)
      check(
        again.exchange.status === 304
          ? undefined
          : `If-None-Match: ${sent} on the current page answered ${again.exchange.status}, not 304`,
        [fresh.exchange, again.exchange],
      );
  }

  const crossed = async (moment: string) => {
    if (!run.options.secondToken) return;
    const own = await page('second-token', undefined, [200], 'no If-None-Match');
    if (own?.exchange.status !== 200 || own.exchange.headers.etag === etag) return;
    const theirs = await page('second-token', etag, [200], "the ETag is of another principal's page");
    if (!theirs) return;
    const leaked = listedNames(theirs.body).filter((name) => plants.some((plant) => plant.name === name));
    check(
      theirs.exchange.status === 304
        ? `${moment}, the second principal sent the first principal's ETag ${etag} and got 304, not its own page`
        : leaked.length
          ? `${moment}, the second principal sent the first principal's ETag and got the first principal's plants (${leaked.join(', ')})`
          : undefined,
      [fresh.exchange, own.exchange, theirs.exchange],
    );
  };
  await crossed('While the page was current');

  const second = await createPlant(run, operations, 'token', plants[1]!);
  if (second?.exchange.status !== operations.create.successStatus) return;
  const changed = await page('token', etag, [200], 'a create changes the ETag');
  if (changed) {
    check(
      changed.exchange.status === 200
        ? undefined
        : `after a create, If-None-Match: ${etag} answered ${changed.exchange.status}: the ETag did not change`,
      [fresh.exchange, second.exchange, changed.exchange],
    );
  }
  await crossed("Right after the first principal's create");
}
