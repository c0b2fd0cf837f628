// The names of every plant a principal has, read over all its pages: what the cleanup, the leftovers of an earlier run
// and the durability check at a run's end look through.
import type { Principal } from './http-client.js';
import type { RunContext } from './run-context.js';

/** How many pages of the largest size the sweep reads per principal before it gives up on finding the rest. */
const MAX_SWEEP_PAGES = 100;

/**
 * The names of every plant `principal` has (a Plant carries no id), over every page (at most MAX_SWEEP_PAGES): pages of
 * the largest size first, and where the deployment fails those (or `largestFirst` is false), pages of its default
 * size; undefined when the list cannot be read. Each page is checked through `call`.
 */
export async function listEveryPlant(
  run: RunContext,
  call: RunContext['call'],
  principal: Principal,
  { largestFirst = true } = {},
): Promise<unknown[] | undefined> {
  const list = run.contract.byRole('list');
  if (!list) return [];
  const listedFrom = async (query: string): Promise<unknown[] | undefined> => {
    let target = `${list.path}${query}`;
    const names: unknown[] = [];
    for (let page = 0; page < MAX_SWEEP_PAGES; page++) {
      const answer = await call(list, { method: 'GET', target, principal }, { statuses: [list.successStatus] });
      if (answer?.exchange.status !== 200 || !Array.isArray(answer.body)) return undefined;
      for (const plant of answer.body as { name?: unknown }[]) names.push(plant?.name);
      const next = /^<([^>]*)>/.exec(answer.exchange.headers.link?.trim() ?? '')?.[1];
      if (next === undefined) return names;
      target = `${list.path}${new URL(next, answer.exchange.url).search}`;
    }
    return names;
  };
  const limit = list.parameters.find((p) => p.name === 'limit')?.schema.maximum;
  const largest = largestFirst && typeof limit === 'number' ? await listedFrom(`?limit=${limit}`) : undefined;
  return largest ?? listedFrom('');
}
