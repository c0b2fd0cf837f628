// The methods of a Link-paged list (getPlants: `list`, `listPage`, `listAll`): each page revalidated with the ETag it
// was kept with (a 304 answers from the kept page), the next page's cursor read from the `Link: <...>; rel="next"`
// header, and every item followed page after page (a cursor named twice in one walk ends it with an error). Which
// operation is paged comes from the contract's SDK rows.
import type { SdkOperationFacts } from '@plant-store/contract';
import { errorFromResponse, PlantStoreCursorCycleError } from './errors.js';
import { nextLink } from './link.js';
import type { RequestContext } from './operation-method.js';
import type { CallOptions } from './transport.js';

type Query = { limit?: number; cursor?: string };
type Page = Record<string, unknown> & { nextCursor: string | undefined };

/** The list's three methods, under the names the row gives (`list`, `listPage`, `listAll`). */
export function pagedMethods(row: SdkOperationFacts, context: RequestContext): Record<string, unknown> {
  const { raw, perCall, baseUrl } = context;
  // Pages kept with their ETags, by query; Map order is use order, so the first key is the least recently used.
  const pages = new Map<string, { etag: string; page: Page }>();
  const items = (page: Page) => page[row.resource] as unknown[];

  async function listPage(query: Query = {}, call?: CallOptions): Promise<Page> {
    const key = `${query.limit}|${query.cursor}`;
    const kept = pages.get(key);
    pages.delete(key);
    const options = perCall(call);
    if (kept) options.headers = { 'if-none-match': kept.etag, ...options.headers };
    const { data, error, response } = await raw.request('get', row.path, { params: { query }, ...options });
    let page = kept?.page;
    if (response.status !== 304 || !page) {
      if (data === undefined) throw errorFromResponse(response, error);
      // Only the cursor is taken from the link: the next request goes to baseUrl, whatever origin the link names.
      const next = nextLink(response.headers.get('link'), response.url || `${baseUrl}${row.path}`);
      page = { [row.resource]: data, nextCursor: next?.searchParams.get('cursor') ?? undefined };
    }
    const etag = response.headers.get('etag');
    if (etag && context.pageCacheSize > 0) {
      pages.set(key, { etag, page });
      if (pages.size > context.pageCacheSize) pages.delete(pages.keys().next().value!);
    }
    // A copy: the caller may change the array it gets, the kept page must not change with it.
    return { ...page, [row.resource]: [...items(page)] };
  }

  return {
    [`${row.name}Page`]: listPage,
    [row.name]: async (query?: Query, call?: CallOptions) => items(await listPage(query, call)),
    async *[`${row.name}All`](query: { pageSize?: number; limit?: number } = {}, call?: CallOptions) {
      const size = query.pageSize ?? query.limit;
      if (query.pageSize !== undefined && query.limit !== undefined && query.pageSize !== query.limit) {
        throw new TypeError(`${row.name}All takes pageSize or limit (the same thing), not two different values`);
      }
      const limit = size === undefined ? {} : { limit: size };
      let cursor: string | undefined;
      // Every cursor this walk followed: one named again would send it round the same pages forever.
      const followed = new Set<string>();
      do {
        const page = await listPage(cursor === undefined ? limit : { ...limit, cursor }, call);
        yield* items(page);
        cursor = page.nextCursor;
        if (cursor !== undefined) {
          if (followed.has(cursor)) throw new PlantStoreCursorCycleError(cursor);
          followed.add(cursor);
        }
      } while (cursor !== undefined);
    },
  };
}
