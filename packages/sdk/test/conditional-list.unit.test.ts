// Conditional lists, against an injected fetch: the SDK keeps the last page and ETag per query, sends If-None-Match
// when it asks again, and turns a 304 into the kept page; the TanStack helpers get it through listPage.

import { json, scriptedFetch } from '@plant-store/test-kit/scripted-fetch';
import { QueryClient } from '@tanstack/query-core';
import { describe, expect, it } from 'vitest';
import { createPlantStoreClient, type PlantStoreClientOptions } from '../src/index.js';
import { createPlantStoreQueries } from '../src/tanstack.js';

function client(fetch: PlantStoreClientOptions['fetch'], options: Partial<PlantStoreClientOptions> = {}) {
  return createPlantStoreClient({ baseUrl: 'http://plants.test', token: 'secret', fetch, ...options });
}
const notModified = (etag: string, headers: Record<string, string> = {}) =>
  new Response(null, { status: 304, headers: { etag, ...headers } });
const link = '</plants?limit=1&cursor=djE6MQ>; rel="next"';

describe('ETag and If-None-Match on lists', () => {
  it('sends the kept ETag and answers a 304 with the kept page', async () => {
    const { fetch, requests } = scriptedFetch(
      json(200, [{ name: 'Fern' }], { etag: 'W/"1-a"', link }),
      notModified('W/"1-a"', { link }),
    );
    const api = client(fetch);
    const first = await api.plants.listPage({ limit: 1 });
    expect(requests[0]!.headers.get('if-none-match')).toBeNull();
    const again = await api.plants.listPage({ limit: 1 });
    expect(requests[1]!.headers.get('if-none-match')).toBe('W/"1-a"');
    expect(again).toEqual(first);
    expect(again).toEqual({ plants: [{ name: 'Fern' }], nextCursor: 'djE6MQ' });
  });

  it('takes a 200 with a new ETag as the new page', async () => {
    const { fetch, requests } = scriptedFetch(
      json(200, [{ name: 'Fern' }], { etag: 'W/"1-a"' }),
      json(200, [{ name: 'Fern' }, { name: 'Moss' }], { etag: 'W/"2-a"' }),
      notModified('W/"2-a"'),
    );
    const api = client(fetch);
    await api.plants.list();
    expect(await api.plants.list()).toEqual([{ name: 'Fern' }, { name: 'Moss' }]);
    expect(await api.plants.list()).toEqual([{ name: 'Fern' }, { name: 'Moss' }]);
    expect(requests[2]!.headers.get('if-none-match')).toBe('W/"2-a"');
  });

  it('keeps pages per query', async () => {
    const { fetch, requests } = scriptedFetch(
      json(200, [{ name: 'a' }], { etag: 'W/"1-small"' }),
      json(200, [{ name: 'a' }, { name: 'b' }], { etag: 'W/"1-big"' }),
      notModified('W/"1-small"'),
    );
    const api = client(fetch);
    await api.plants.list({ limit: 1 });
    await api.plants.list({ limit: 2 });
    expect(requests[1]!.headers.get('if-none-match')).toBeNull();
    expect(await api.plants.list({ limit: 1 })).toEqual([{ name: 'a' }]);
    expect(requests[2]!.headers.get('if-none-match')).toBe('W/"1-small"');
  });

  it('hands out copies: changing a returned page does not change the kept one', async () => {
    const { fetch } = scriptedFetch(json(200, [{ name: 'a' }], { etag: 'W/"1"' }), notModified('W/"1"'));
    const api = client(fetch);
    (await api.plants.list()).push({ name: 'mine' });
    expect(await api.plants.list()).toEqual([{ name: 'a' }]);
  });

  it('keeps at most pageCacheSize pages, the least recently used dropped first, and none with 0', async () => {
    const answers = [1, 2, 3].map((limit) => json(200, [], { etag: `W/"${limit}"` }));
    const { fetch, requests } = scriptedFetch(...answers, json(200, [], { etag: 'W/"1"' }), notModified('W/"3"'));
    const api = client(fetch, { pageCacheSize: 2 });
    for (const limit of [1, 2, 3]) await api.plants.list({ limit });
    await api.plants.list({ limit: 1 });
    expect(requests[3]!.headers.get('if-none-match')).toBeNull();
    await api.plants.list({ limit: 3 });
    expect(requests[4]!.headers.get('if-none-match')).toBe('W/"3"');

    const none = scriptedFetch(json(200, [], { etag: 'W/"1"' }), json(200, [], { etag: 'W/"1"' }));
    const off = client(none.fetch, { pageCacheSize: 0 });
    await off.plants.list();
    await off.plants.list();
    expect(none.requests[1]!.headers.get('if-none-match')).toBeNull();
  });

  it('gives TanStack queries the kept page on a 304', async () => {
    const { fetch, requests } = scriptedFetch(json(200, [{ name: 'Fern' }], { etag: 'W/"1"' }), notModified('W/"1"'));
    const queries = createPlantStoreQueries(client(fetch));
    const queryClient = new QueryClient();
    const first = await queryClient.fetchQuery(queries.page());
    const again = await queryClient.fetchQuery({ ...queries.page(), staleTime: 0 });
    expect(requests).toHaveLength(2);
    expect(requests[1]!.headers.get('if-none-match')).toBe('W/"1"');
    expect(again).toEqual(first);
  });
});
