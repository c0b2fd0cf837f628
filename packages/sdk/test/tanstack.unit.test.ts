// The TanStack Query helpers with a real QueryClient (query-core, as every adapter uses it) against the testing kit:
// one page, infinite pages following the Link cursor, mutations that invalidate the lists, TanStack's retry off,
// cancellation through TanStack's signal, and keys with bigint ids.

import { json, scriptedFetch } from '@plant-store/test-kit/scripted-fetch';
import { InfiniteQueryObserver, isCancelledError, MutationObserver, QueryClient } from '@tanstack/query-core';
import { afterEach, describe, expect, it } from 'vitest';
import { createPlantStoreClient, InternalServerError, PlantStoreAbortError } from '../src/index.js';
import { createPlantStoreQueries, hashPlantStoreKey } from '../src/tanstack.js';
import { createFakePlantStore } from '../src/testing/index.js';

const queryClients: QueryClient[] = [];
afterEach(() => {
  for (const client of queryClients.splice(0)) client.clear();
});

function setup() {
  const fake = createFakePlantStore();
  fake.seed(
    'alice',
    Array.from({ length: 5 }, (_, i) => ({ id: i + 1, name: `p${i + 1}` })),
  );
  const client = createPlantStoreClient({
    baseUrl: 'http://plant-store.test',
    token: fake.createToken({ subject: 'alice' }),
    fetch: fake.fetch,
    sleep: async () => {},
  });
  const queryClient = new QueryClient();
  queryClients.push(queryClient);
  return { fake, client, queryClient, plants: createPlantStoreQueries(client) };
}

describe('TanStack Query helpers', () => {
  it('fetches one page with its next cursor', async () => {
    const { queryClient, plants } = setup();
    const page = await queryClient.fetchQuery(plants.page({ limit: 2 }));
    expect(page.plants).toEqual([{ name: 'p1' }, { name: 'p2' }]);
    expect(page.nextCursor).toEqual(expect.any(String));
    expect(queryClient.getQueryData(plants.keys.page({ limit: 2 }))).toBe(page);
  });

  it('follows the Link cursor page after page in an infinite query, and stops on the last', async () => {
    const { fake, queryClient, plants } = setup();
    const observer = new InfiniteQueryObserver(queryClient, plants.infinite({ limit: 2 }));
    const unsubscribe = observer.subscribe(() => {});
    try {
      await observer.refetch();
      await observer.fetchNextPage();
      const result = await observer.fetchNextPage();
      expect(result.data?.pages.map((page) => page.plants.map((plant) => plant.name))).toEqual([
        ['p1', 'p2'],
        ['p3', 'p4'],
        ['p5'],
      ]);
      expect(result.hasNextPage).toBe(false);
      const urls = fake.requests.map((request) => new URL(request.url).search);
      expect(urls[0]).toBe('?limit=2');
      expect(urls.at(-1)).toMatch(/^\?limit=2&cursor=[A-Za-z0-9_-]+$/);
    } finally {
      unsubscribe();
    }
  });

  it('ends an infinite query at a cursor it has already followed (A -> B -> A)', async () => {
    const cycle = ['A', 'B', 'A', 'B'].map((cursor, n) =>
      json(200, [{ name: `p${n}` }], { link: `</plants?limit=1&cursor=${cursor}>; rel="next"` }),
    );
    const { fetch, requests } = scriptedFetch(...cycle);
    const client = createPlantStoreClient({ baseUrl: 'http://plants.test', token: 't', fetch });
    const queryClient = new QueryClient();
    queryClients.push(queryClient);
    const observer = new InfiniteQueryObserver(queryClient, createPlantStoreQueries(client).infinite({ limit: 1 }));
    const unsubscribe = observer.subscribe(() => {});
    try {
      await observer.refetch();
      await observer.fetchNextPage();
      const result = await observer.fetchNextPage();
      expect(result.data?.pages.map((page) => page.plants[0]?.name)).toEqual(['p0', 'p1', 'p2']);
      // The third page links to A again, which the second page was fetched with: no next page, no fourth request.
      expect(result.hasNextPage).toBe(false);
      await observer.fetchNextPage();
      expect(requests.map((request) => new URL(request.url).searchParams.get('cursor'))).toEqual([null, 'A', 'B']);
    } finally {
      unsubscribe();
    }
  });

  it('leaves retrying to the SDK: one failed request is one error, not four', async () => {
    const { fake, client, queryClient } = setup();
    const plants = createPlantStoreQueries(client);
    fake.failNext({ status: 500 });
    await expect(queryClient.fetchQuery(plants.page())).rejects.toBeInstanceOf(InternalServerError);
    expect(fake.requests).toHaveLength(1);
    expect(plants.page().retry).toBe(false);
    expect(plants.infinite().retry).toBe(false);
    expect(plants.create(queryClient).retry).toBe(false);
  });

  it('creates and deletes through mutations that invalidate every list', async () => {
    const { fake, queryClient, plants } = setup();
    await queryClient.fetchQuery(plants.page({ limit: 100 }));
    await new MutationObserver(queryClient, plants.create(queryClient)).mutate({
      id: 9223372036854775807n,
      name: 'Big',
    });
    expect(queryClient.getQueryState(plants.keys.page({ limit: 100 }))?.isInvalidated).toBe(true);
    await queryClient.fetchQuery(plants.page({ limit: 100 }));
    expect(queryClient.getQueryState(plants.keys.page({ limit: 100 }))?.isInvalidated).toBe(false);
    await new MutationObserver(queryClient, plants.delete(queryClient)).mutate(9223372036854775807n);
    expect(queryClient.getQueryState(plants.keys.page({ limit: 100 }))?.isInvalidated).toBe(true);
    expect(fake.plantsOf('alice')).toHaveLength(5);
  });

  it('passes TanStack’s signal, so cancelling a query aborts the request', async () => {
    const { client, queryClient } = setup();
    let aborted = false;
    const slow = createPlantStoreQueries({
      ...client,
      plants: {
        ...client.plants,
        listPage: (_query, call) =>
          new Promise((_resolve, reject) =>
            call?.signal?.addEventListener('abort', () => {
              aborted = true;
              reject(new PlantStoreAbortError('aborted'));
            }),
          ),
      },
    });
    const pending = queryClient.fetchQuery(slow.page()).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 10));
    await queryClient.cancelQueries({ queryKey: slow.keys.all });
    expect(isCancelledError(await pending)).toBe(true);
    expect(aborted).toBe(true);
  });

  it('hashes keys with bigint ids, telling 1n from 1', async () => {
    expect(hashPlantStoreKey(['plant', 1n])).not.toBe(hashPlantStoreKey(['plant', 1]));
    expect(hashPlantStoreKey([{ b: 1, a: 9223372036854775807n }])).toBe(
      '[{"a":{"$bigint":"9223372036854775807"},"b":1}]',
    );
    const queryClient = new QueryClient({ defaultOptions: { queries: { queryKeyHashFn: hashPlantStoreKey } } });
    queryClients.push(queryClient);
    await expect(
      queryClient.fetchQuery({ queryKey: ['plant', 9223372036854775807n], queryFn: () => 'ok' }),
    ).resolves.toBe('ok');
    expect(() => new QueryClient().getQueryCache().build(new QueryClient(), { queryKey: ['plant', 1n] })).toThrow(
      /BigInt/,
    );
  });

  it('keeps the caches of two scopes apart', () => {
    const { client } = setup();
    const a = createPlantStoreQueries(client, { scope: 'alice' });
    const b = createPlantStoreQueries(client, { scope: 'bob' });
    expect(a.keys.page()).not.toEqual(b.keys.page());
    expect(a.keys.lists()).toEqual(['plant-store', 'alice', 'plants']);
  });
});
