// The `ensure-resource-availability` and `use-after-free` checks: a created plant is listed at once, also by a list
// URL the principal fetched just before the create (a cache that writes do not reach fails here), and a deleted plant
// is gone at once: deleting it again is a 404, no list shows it, and its id is free to create again.
import { createPlant, deletePlant, plantName, plantOperations, slotId, walkList } from './phase-support.js';
import type { RunContext } from './run-context.js';

const LIMIT = 100;

export async function runLifecyclePhase(run: RunContext): Promise<void> {
  const operations = plantOperations(run);
  if (!operations) return;
  const { list, create, remove } = operations;
  const record = run.results.record.bind(run.results);
  const plants = [0, 1].map((index) => ({
    id: slotId(run, 'lifecycle', index),
    name: plantName(run, 'lifecycle', index),
  }));

  await walkList(run, list, 'token', LIMIT);
  const created = [];
  for (const plant of plants) {
    const answer = await createPlant(run, operations, 'token', plant);
    if (answer?.exchange.status === create.successStatus) created.push(plant);
  }
  if (created.length === 0 || run.signal.aborted) return;
  const after = await walkList(run, list, 'token', LIMIT);
  if (after.complete) {
    const missing = created.filter((plant) => !after.names.includes(plant.name));
    record(
      create.operationId,
      'ensure-resource-availability',
      missing.length
        ? `created ${missing.map((plant) => plant.id).join(', ')} (200), but the list fetched right after does not show ${missing.map((plant) => plant.name).join(', ')}`
        : undefined,
      after.pages,
    );
  }

  const [gone] = created;
  if (!gone || run.signal.aborted) return;
  const deleted = await deletePlant(run, operations, 'token', gone.id, {
    statuses: [remove.successStatus],
    because: 'this principal created the plant',
  });
  if (deleted?.exchange.status !== remove.successStatus) return;
  const again = await deletePlant(run, operations, 'token', gone.id, {
    statuses: [404],
    because: 'deleted a moment ago',
  });
  if (again) {
    record(
      remove.operationId,
      'use-after-free',
      again.exchange.status === 404
        ? undefined
        : `deleting ${gone.id} a second time answered ${again.exchange.status}, not 404`,
      [deleted.exchange, again.exchange],
    );
  }
  const listing = await walkList(run, list, 'token', LIMIT);
  if (listing.complete) {
    record(
      list.operationId,
      'use-after-free',
      listing.names.includes(gone.name)
        ? `${gone.name} (id ${gone.id}) is still listed after its delete answered ${deleted.exchange.status}`
        : undefined,
      [deleted.exchange, ...listing.pages],
    );
  }
  const reborn = await createPlant(run, operations, 'token', gone, {
    statuses: [create.successStatus],
    because: 'the id was deleted, so it is free again',
  });
  if (reborn) {
    record(
      create.operationId,
      'use-after-free',
      reborn.exchange.status === create.successStatus
        ? undefined
        : `creating the deleted id ${gone.id} again answered ${reborn.exchange.status}`,
      [deleted.exchange, reborn.exchange],
    );
  }
}
