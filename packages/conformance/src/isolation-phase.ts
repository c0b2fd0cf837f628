// The `cache-isolation` check: principal B asks for the very list URL principal A was just served, before and right
// after A's writes, and must never get A's plants. A cache keyed on the URL alone (a CDN or gateway that ignores
// Authorization) fails it by itself, whatever the other checks see.
import type { Principal } from './http-client.js';
import { createPlant, firstPageTarget, listedNames, plantName, plantOperations, slotId } from './phase-support.js';
import type { RunContext } from './run-context.js';

export async function runIsolationPhase(run: RunContext): Promise<void> {
  const operations = plantOperations(run);
  if (!operations || !run.options.secondToken) return;
  const { list } = operations;
  const target = firstPageTarget(list);
  const plants = [0, 1, 2].map((index) => ({
    id: slotId(run, 'isolation', index),
    name: plantName(run, 'isolation', index),
  }));
  const page = (principal: Principal) =>
    run.call(list, { method: 'GET', target, principal }, { statuses: [list.successStatus] });
  const ours: string[] = [];

  /** A lists the page, then B asks for the same URL at once. */
  const probe = async (moment: string) => {
    const own = await page('token');
    const theirs = await page('second-token');
    if (!own || !theirs || theirs.exchange.status !== list.successStatus) return;
    const leaked = listedNames(theirs.body).filter((name) => ours.includes(name));
    run.results.record(
      list.operationId,
      'cache-isolation',
      leaked.length
        ? `${moment}, the second principal asked for ${target}, the URL the first principal had just been served, and got the first principal's plants (${leaked.slice(0, 3).join(', ')})`
        : undefined,
      [own.exchange, theirs.exchange],
    );
  };

  for (const plant of plants.slice(0, 2)) {
    const answer = await createPlant(run, operations, 'token', plant);
    if (answer?.exchange.status === operations.create.successStatus) ours.push(plant.name);
  }
  if (ours.length === 0 || run.signal.aborted) return;
  await probe('Before any other write');
  const last = plants[2]!;
  const answer = await createPlant(run, operations, 'token', last);
  if (answer?.exchange.status === operations.create.successStatus) ours.push(last.name);
  await probe(`Right after the first principal created ${last.id}`);
}
