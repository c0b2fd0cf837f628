// The stateful phase: a model of what each principal owns, checked against the service. Create plants (pairs of
// neighbouring ids that share one double), page through the list by its Link headers, delete, list again; with a
// second token, the other principal must never see, delete or collide with the first one's plants.
import fc from 'fast-check';
import { linkProblems } from './checks.js';
import { bodyIdField } from './generated-phase.js';
import type { Exchange, Principal } from './http-client.js';
import { RESERVED_SIZE, ROUNDING_MARGIN } from './reserved-ids.js';
import type { RunContext } from './run-context.js';
import { runName } from './run-names.js';
import { toJson } from './schema-arbitraries.js';

interface Planted {
  id: bigint;
  name: string;
  tag?: string;
}

interface Listing {
  /** Every plant listed, in order, with the page it came on. */
  plants: { name: unknown; tag: unknown; page: Exchange }[];
  pages: Exchange[];
  /** False when a page failed or the page cap was hit. */
  complete: boolean;
  /** The last page held `limit` plants and no Link. */
  endedFull: boolean;
}

const MAX_PAGES = 200;

/** Pairs of neighbouring ids in the block that a double cannot tell apart (X and X + 1 round to the same double). */
function neighbourPairs(run: RunContext, count: number): [bigint, bigint][] {
  const offsets = fc.sample(fc.noBias(fc.bigInt({ min: ROUNDING_MARGIN, max: RESERVED_SIZE - 2n * ROUNDING_MARGIN })), {
    seed: run.options.seed + 7,
    numRuns: count * 4,
  });
  const pairs: [bigint, bigint][] = [];
  for (const offset of offsets) {
    let id = run.range.at(offset);
    while (Number(id) !== Number(id + 1n) || Number(id - 1n) !== Number(id)) id += 1n;
    // Distinct and apart: X - 1 of one pair must not be another pair's id.
    if (pairs.some(([x]) => x - id < 4n && id - x < 4n)) continue;
    pairs.push([id, id + 1n]);
    if (pairs.length === count) break;
  }
  return pairs;
}

export async function runStatefulPhase(run: RunContext): Promise<void> {
  const create = run.contract.byRole('create');
  const list = run.contract.byRole('list');
  const remove = run.contract.byRole('delete');
  if (!list) return;
  const { results } = run;
  const second = run.options.secondToken ? ('second-token' as const) : undefined;
  const cursorPattern = list.parameters.find((p) => p.name === 'cursor')?.schema.pattern;
  const limit = 2 + (run.options.seed % 3);

  const listAll = async (principal: Principal, check: 'model-listing' | 'principal-isolation'): Promise<Listing> => {
    const listing: Listing = { plants: [], pages: [], complete: false, endedFull: false };
    let target = `${list.path}?limit=${limit}`;
    for (let page = 0; page < MAX_PAGES && !run.signal.aborted; page++) {
      const answer = await run.call(list, { method: 'GET', target, principal }, { statuses: [list.successStatus] });
      if (answer?.exchange.status !== 200 || !Array.isArray(answer.body)) return listing;
      const { exchange, body } = answer;
      listing.pages.push(exchange);
      for (const plant of body as { name?: unknown; tag?: unknown }[]) {
        listing.plants.push({ name: plant?.name, tag: plant?.tag, page: exchange });
      }
      results.record(
        list.operationId,
        'model-listing',
        body.length > limit ? `a page of ${body.length} plants for limit=${limit}` : undefined,
        [exchange],
      );
      const link = exchange.headers.link;
      if (link === undefined) {
        listing.complete = true;
        listing.endedFull = body.length === limit;
        return listing;
      }
      const problems = linkProblems(
        link,
        exchange.url,
        cursorPattern ? new RegExp(String(cursorPattern), 'u') : undefined,
      );
      results.record(list.operationId, 'link', problems.length ? problems.join('; ') : undefined, [exchange]);
      if (problems.length) return listing;
      const next = new URL(/^<([^>]*)>/.exec(link.trim())![1]!, exchange.url);
      target = `${list.path}${next.search}`;
    }
    if (!run.signal.aborted)
      results.skip(
        list.operationId,
        check,
        `the list is longer than ${MAX_PAGES} pages of ${limit}: not walked to its end`,
      );
    return listing;
  };

  /** Checks that `expected` appear exactly once each, in ascending id order, as sent; and that `gone` do not. */
  const checkListing = (listing: Listing, expected: Planted[], gone: Planted[], principal: Principal) => {
    if (!listing.complete) return;
    const ours = listing.plants.filter(
      (plant) => typeof plant.name === 'string' && plant.name.startsWith(run.namePrefix),
    );
    const pages = listing.pages;
    const missing = expected.filter((plant) => !ours.some((listed) => listed.name === plant.name));
    const twice = expected.filter((plant) => ours.filter((listed) => listed.name === plant.name).length > 1);
    const order = [...expected].sort((a, b) => (a.id < b.id ? -1 : 1)).map((plant) => plant.name);
    const seen = ours.map((plant) => plant.name).filter((name) => order.includes(name as string));
    const wrongTag = expected.filter((plant) =>
      ours.some((listed) => listed.name === plant.name && listed.tag !== plant.tag),
    );
    const problems: string[] = [];
    if (missing.length > 0 && listing.endedFull) {
      results.record(
        list.operationId,
        'link',
        `the last page held limit=${limit} plants and no Link, but ${missing.length} of the plants ${principal} created were not listed`,
        pages,
      );
    } else if (missing.length > 0) {
      problems.push(
        `${missing.length} created plants are not listed (${missing
          .slice(0, 3)
          .map((p) => p.id)
          .join(', ')})`,
      );
    } else if (listing.pages.length > 1) {
      results.record(list.operationId, 'link', undefined, pages);
    }
    if (twice.length > 0) problems.push(`listed more than once: ${twice.map((p) => p.name).join(', ')}`);
    if (missing.length === 0 && twice.length === 0 && seen.join('\n') !== order.join('\n')) {
      problems.push(`not in ascending id order: listed ${seen.join(', ')}; ids order ${order.join(', ')}`);
    }
    if (wrongTag.length > 0) problems.push(`tags changed: ${wrongTag.map((p) => p.name).join(', ')}`);
    results.record(
      list.operationId,
      'model-listing',
      problems.length ? `${principal}: ${problems.join('; ')}` : undefined,
      pages,
    );
    const back = gone.filter((plant) => ours.some((listed) => listed.name === plant.name));
    if (gone.length > 0) {
      results.record(
        list.operationId,
        'deleted-gone',
        back.length ? `deleted plants still listed: ${back.map((p) => p.id).join(', ')}` : undefined,
        pages,
      );
    }
  };

  if (!create || !remove || run.options.readOnly) {
    // Read-only: page through what each principal has, checking every page and link.
    await listAll('token', 'model-listing');
    if (second) await listAll(second, 'principal-isolation');
    return;
  }

  const idField = bodyIdField(create) ?? 'id';
  const plantsFor = (who: string, ids: bigint[]): Planted[] =>
    ids.map((id, index) => ({
      id,
      name: runName(run.namePrefix, id, `${who}-${index}`),
      ...(index % 3 === 1 ? { tag: index % 2 ? 'conformance \u{1F335} é' : 'x'.repeat(1) } : {}),
    }));
  const createAs = async (principal: Principal, plant: Planted, statuses: number[], because: string) => {
    const answer = await run.call(
      create,
      {
        method: create.method,
        target: create.path,
        principal,
        headers: { 'content-type': 'application/json' },
        body: toJson({ [idField]: plant.id, name: plant.name, ...(plant.tag === undefined ? {} : { tag: plant.tag }) }),
      },
      { statuses, because },
    );
    if (answer && answer.exchange.status >= 200 && answer.exchange.status < 300) run.ledger.add(principal, plant.id);
    return answer;
  };
  const deleteAs = async (principal: Principal, id: bigint, statuses: number[], because: string) => {
    const target = remove.path.replace(/\{[^}]+\}/, String(id));
    const answer = await run.call(remove, { method: remove.method, target, principal }, { statuses, because });
    if (answer && answer.exchange.status >= 200 && answer.exchange.status < 300) run.ledger.remove(principal, id);
    return answer;
  };
  const stop = () => run.signal.aborted;

  // 1. Create pairs of neighbours: X first, then X + 1, which a service reading ids as doubles takes for X.
  const pairs = neighbourPairs(run, 4);
  const ids = [...pairs.map(([x]) => x), ...pairs.map(([, y]) => y)];
  const mine = plantsFor('a', ids);
  const created: Planted[] = [];
  for (const plant of mine) {
    if (stop()) return;
    const answer = await createAs('token', plant, [create.successStatus], 'a new id');
    if (!answer) continue;
    if (answer.exchange.status >= 200 && answer.exchange.status < 300) created.push(plant);
    const twin = created.find((other) => other.id === plant.id - 1n);
    if (twin) {
      results.record(
        create.operationId,
        'id-exact',
        answer.exchange.status === 409
          ? `${plant.id} was refused as a duplicate of ${twin.id}: the ids were not kept exact (read as the double ${Number(plant.id)})`
          : undefined,
        [answer.exchange],
      );
    }
  }
  if (created.length === 0 || stop()) return;

  // 2. The same id again is a conflict.
  await createAs('token', created[0]!, [409], 'this principal created that id a moment ago');

  // 3. A neighbour never created, which a double cannot tell from a created id, is not found.
  const probe = created.find((plant) => !ids.includes(plant.id - 1n));
  if (probe && !stop()) {
    const answer = await deleteAs(
      'token',
      probe.id - 1n,
      [404],
      `${probe.id - 1n} was never created (${probe.id} was)`,
    );
    if (answer) {
      results.record(
        remove.operationId,
        'id-exact',
        answer.exchange.status >= 200 && answer.exchange.status < 300
          ? `deleting ${probe.id - 1n}, never created, answered ${answer.exchange.status}: it deleted ${probe.id} (both read as the double ${Number(probe.id)})`
          : undefined,
        [answer.exchange],
      );
      if (answer.exchange.status >= 200 && answer.exchange.status < 300) {
        created.splice(created.indexOf(probe), 1);
        run.ledger.remove('token', probe.id);
      }
    }
  }
  if (stop()) return;

  // 4. Page through the list: every plant created, once, in id order, as sent.
  checkListing(await listAll('token', 'model-listing'), created, [], 'token');

  // 5. The other principal: the same first page shows none of them; they are unknown to it, and free to it.
  if (second && !stop()) {
    const first = await run.call(
      list,
      { method: 'GET', target: `${list.path}?limit=${limit}`, principal: second },
      { statuses: [200] },
    );
    const theirs = (listing: { name: unknown }[], pages: Exchange[]) => {
      const leaked = listing.filter((plant) => created.some((own) => own.name === plant.name));
      results.record(
        list.operationId,
        'principal-isolation',
        leaked.length
          ? `the second principal was shown ${leaked.length} of the first principal's plants (${String(leaked[0]!.name)})`
          : undefined,
        pages,
      );
    };
    if (first && Array.isArray(first.body)) theirs(first.body as { name: unknown }[], [first.exchange]);
    const listing = await listAll(second, 'principal-isolation');
    if (listing.complete) theirs(listing.plants, listing.pages);
    const target = created[0]!;
    const stolen = await deleteAs(second, target.id, [404], "the id is another principal's");
    if (stolen) {
      const deleted = stolen.exchange.status >= 200 && stolen.exchange.status < 300;
      results.record(
        remove.operationId,
        'principal-isolation',
        deleted ? `the second principal deleted the first principal's plant ${target.id}` : undefined,
        [stolen.exchange],
      );
      if (deleted) {
        created.splice(0, 1);
        run.ledger.remove('token', target.id);
      }
    }
    const shared = created[created.length - 1]!;
    const theirsPlant = plantsFor('b', [shared.id])[0]!;
    const collided = await createAs(second, theirsPlant, [create.successStatus], 'ids are unique per principal');
    if (collided) {
      results.record(
        create.operationId,
        'principal-isolation',
        collided.exchange.status === 409
          ? `the second principal's create of ${shared.id} conflicted with the first principal's plant`
          : undefined,
        [collided.exchange],
      );
    }
    if (collided && collided.exchange.status === 200 && !stop()) {
      const own = await listAll(second, 'principal-isolation');
      checkListing(own, [theirsPlant], [], second);
    }
  }
  if (stop()) return;

  // 6. Delete every other plant, then one of them again: gone, and a 404 the second time.
  const deleted: Planted[] = [];
  for (const plant of created.filter((_plant, index) => index % 2 === 0)) {
    if (stop()) return;
    const answer = await deleteAs('token', plant.id, [remove.successStatus], 'the plant was created by this principal');
    if (answer && answer.exchange.status >= 200 && answer.exchange.status < 300) deleted.push(plant);
  }
  if (deleted.length > 0 && !stop()) {
    const again = await deleteAs('token', deleted[0]!.id, [404], 'deleted a moment ago');
    if (again) {
      results.record(
        remove.operationId,
        'deleted-gone',
        again.exchange.status === 404
          ? undefined
          : `deleting ${deleted[0]!.id} twice answered ${again.exchange.status} the second time`,
        [again.exchange],
      );
    }
  }
  if (stop()) return;

  // 7. List again: the deleted ones are gone, the rest are still there once each.
  const left = created.filter((plant) => !deleted.includes(plant));
  checkListing(await listAll('token', 'model-listing'), left, deleted, 'token');
}
