// The `cache-isolation` check: principal B asks for the very list URL principal A was just served, before and right
// after A's writes, and the two answers never share a plant the run created (no two principals of a run share a plant
// name). A cache keyed on the URL alone (a CDN or gateway that ignores whose token it is) fails it by itself, whatever
// the other checks see.
import type { Principal } from './http-client.js';
import { createPlant, firstPageTarget, plantName, plantOperations, sharedRunPlants, slotId } from './phase-support.js';
import type { RunContext } from './run-context.js';

export async function runIsolationPhase(run: RunContext): Promise<void> {
  const operations = plantOperations(run);
  if (!operations || !run.options.secondToken) return;
  const { list, create } = operations;
  const target = firstPageTarget(list);
  const page = (principal: Principal) =>
    run.call(list, { method: 'GET', target, principal }, { statuses: [list.successStatus] });

  /** A lists the page, then B asks for the same URL at once. */
  const probe = async (moment: string) => {
    const own = await page('token');
    const theirs = await page('second-token');
    if (own?.exchange.status !== list.successStatus || theirs?.exchange.status !== list.successStatus) return;
    const shared = sharedRunPlants(run, own.body, theirs.body);
    run.results.record(
      list.operationId,
      'cache-isolation',
      shared.length
        ? `${moment}, both principals asked for ${target} and both answers hold the same plants of this run ` +
            `(${shared.slice(0, 3).join(', ')}): one principal was served the other's page`
        : undefined,
      [own.exchange, theirs.exchange],
    );
  };

  const plant = (index: number) => ({ id: slotId(run, 'isolation', index), name: plantName(run, 'isolation', index) });
  const first = await createPlant(run, operations, 'token', plant(0));
  if (first?.exchange.status !== create.successStatus || run.signal.aborted) return;
  await probe('Before any other write');
  const second = await createPlant(run, operations, 'token', plant(1));
  if (second?.exchange.status === create.successStatus)
    await probe(`Right after the first principal created ${plant(1).id}`);
}
