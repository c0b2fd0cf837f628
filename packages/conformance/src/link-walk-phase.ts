// The `link-walk-under-writes` check: a walk of the list by its Link headers, while the same principal's creates and
// deletes land between its pages (behind the walk's position, where they move every later plant by one), lists every
// plant present throughout exactly once. Cursors that count positions (offsets) skip or repeat plants here.
import { createPlant, deletePlant, plantName, plantOperations, slotId, walkList } from './phase-support.js';
import type { RunContext } from './run-context.js';

interface Plant {
  id: bigint;
  name: string;
}

/** Plants present throughout; as many others come and go between them. */
const STEADY = 12;
/** An odd page size: the page boundary falls on a steady plant and on a changing one in turn. */
const LIMIT = 3;

export async function runLinkWalkPhase(run: RunContext): Promise<void> {
  const operations = plantOperations(run);
  if (!operations) return;
  const { list, remove } = operations;
  // Steady plants at odd indexes, changing ones at even indexes: in id order they alternate.
  const plant = (index: number) => ({ id: slotId(run, 'walk', index), name: plantName(run, 'walk', index) });
  const steady: Plant[] = [];
  const changing: Plant[] = [];
  for (let index = 0; index < STEADY * 2 && !run.signal.aborted; index++) {
    const answer = await createPlant(run, operations, 'token', plant(index));
    if (answer?.exchange.status === operations.create.successStatus) (index % 2 ? steady : changing).push(plant(index));
  }
  if (steady.length === 0 || run.signal.aborted) return;

  const present = new Set(changing.map((p) => p.name));
  const deleted: Plant[] = [];
  let writes = 0;
  let turn = 0;
  // After each page: delete a changing plant the walk has passed, or bring the last one deleted back, in turn.
  const between = async (names: string[]) => {
    const passed = changing.filter((p) => present.has(p.name) && names.includes(p.name));
    if (turn++ % 2 === 0 && passed.length > 0) {
      const gone = passed[0]!;
      const answer = await deletePlant(run, operations, 'token', gone.id, {
        statuses: [remove.successStatus],
        because: 'this principal created the plant',
      });
      writes++;
      if (answer?.exchange.status === remove.successStatus) {
        present.delete(gone.name);
        deleted.push(gone);
      }
    } else if (deleted.length > 0) {
      const back = deleted.pop()!;
      const answer = await createPlant(run, operations, 'token', back);
      writes++;
      if (answer?.exchange.status === operations.create.successStatus) present.add(back.name);
    }
  };
  const walk = await walkList(run, list, 'token', LIMIT, between);
  if (!walk.complete) {
    run.results.record(
      list.operationId,
      'link-walk-under-writes',
      `the walk did not reach a last page (${walk.pages.length} pages)`,
      walk.pages,
    );
    return;
  }
  const counts = steady.map((p) => [p, walk.names.filter((name) => name === p.name).length] as const);
  const missing = counts.filter(([, count]) => count === 0).map(([p]) => p.name);
  const twice = counts.filter(([, count]) => count > 1).map(([p]) => p.name);
  run.results.record(
    list.operationId,
    'link-walk-under-writes',
    missing.length || twice.length
      ? `walking ${walk.pages.length} pages of ${LIMIT} while ${writes} creates and deletes landed behind the walk: ` +
          [
            missing.length ? `skipped ${missing.join(', ')}` : '',
            twice.length ? `listed twice ${twice.join(', ')}` : '',
          ]
            .filter(Boolean)
            .join('; ')
      : undefined,
    walk.pages,
  );
}
