// @plant-store/sdk/tanstack: TanStack Query options for every adapter (React, Vue, Solid, Svelte, Angular, core):
// one page and infinite lists that follow the Link cursor, create and delete mutations that invalidate the lists,
// TanStack's own retry off (the SDK retries what is safe to), and query-key hashing that survives bigint ids.
// Types only from @tanstack/query-core (an optional peer): this module adds no TanStack code to a bundle.
import type { NewPlant, PlantId } from '@plant-store/contract';
import type {
  DataTag,
  InfiniteData,
  InfiniteQueryObserverOptions,
  MutationOptions,
  QueryClient,
  QueryKey,
  QueryObserverOptions,
} from '@tanstack/query-core';
import type { PlantStoreSdkError } from './errors.js';
import type { ListQuery, Plant, PlantPage, PlantStoreClient } from './index.js';
import type { CallOptions } from './transport.js';

/** What an infinite list asks for: the page size; the cursor comes from each page's Link header. */
export interface InfiniteListQuery {
  /** Plants per page, within `PLANT_STORE_LIMITS.limit` (the contract's default when absent). */
  limit?: ListQuery['limit'];
}

/** Call options the helpers pass on: everything but `signal`, which TanStack provides (and uses to cancel). */
export type QueryCallOptions = Omit<CallOptions, 'signal'>;

/** The query keys, all under `['plant-store', scope]`: invalidate `lists()` to refetch every list of plants. */
export interface PlantStoreQueryKeys {
  /** Every query of this client: `['plant-store', scope]`. */
  all: readonly ['plant-store', string];
  /** Every list of plants, paged or infinite. */
  lists(): readonly ['plant-store', string, 'plants'];
  /** One page of plants for `query`. */
  page(
    query?: ListQuery,
  ): DataTag<readonly ['plant-store', string, 'plants', 'page', ListQuery], PlantPage, PlantStoreSdkError>;
  /** The infinite list for `query`. */
  infinite(
    query?: InfiniteListQuery,
  ): DataTag<
    readonly ['plant-store', string, 'plants', 'infinite', InfiniteListQuery],
    InfiniteData<PlantPage, string | undefined>,
    PlantStoreSdkError
  >;
}

/** The options {@link createPlantStoreQueries} returns, ready for `useQuery`, `useInfiniteQuery` and `useMutation`. */
export interface PlantStoreQueries {
  /** The query keys these options use. */
  keys: PlantStoreQueryKeys;
  /** Options for one page of plants (`listPage`): data is `{ plants, nextCursor }`. */
  page(
    query?: ListQuery,
    call?: QueryCallOptions,
  ): QueryObserverOptions<PlantPage, PlantStoreSdkError, PlantPage, PlantPage, ReturnType<PlantStoreQueryKeys['page']>>;
  /** Options for an infinite list: each next page is asked for with the cursor of the previous page's Link. */
  infinite(
    query?: InfiniteListQuery,
    call?: QueryCallOptions,
  ): InfiniteQueryObserverOptions<
    PlantPage,
    PlantStoreSdkError,
    InfiniteData<PlantPage, string | undefined>,
    ReturnType<PlantStoreQueryKeys['infinite']>,
    string | undefined
  >;
  /** Options for creating a plant; on success every list is invalidated. */
  create(queryClient: QueryClient, call?: QueryCallOptions): MutationOptions<Plant, PlantStoreSdkError, NewPlant>;
  /** Options for deleting a plant by id; on success every list is invalidated. */
  delete(queryClient: QueryClient, call?: QueryCallOptions): MutationOptions<void, PlantStoreSdkError, PlantId>;
}

/** Options of {@link createPlantStoreQueries}. */
export interface PlantStoreQueriesOptions {
  /**
   * Part of every key, to keep apart the caches of several clients or users (say the signed-in user's id); default
   * `'default'`. Clear the QueryClient when the user signs out.
   */
  scope?: string;
}

/**
 * A query-key hash that, unlike TanStack's default, accepts bigint ids ("Do not know how to serialize a BigInt"),
 * and tells `1n` from `1`. Object keys are sorted, as TanStack does. Set it client-wide with
 * `new QueryClient({ defaultOptions: { queries: { queryKeyHashFn: hashPlantStoreKey } } })`; the options this module
 * builds carry it already.
 */
export function hashPlantStoreKey(queryKey: QueryKey): string {
  return JSON.stringify(queryKey, (_key, value: unknown) => {
    if (typeof value === 'bigint') return { $bigint: value.toString() };
    if (value !== null && typeof value === 'object' && !Array.isArray(value) && isPlainObject(value)) {
      const record = value as Record<string, unknown>;
      return Object.fromEntries(
        Object.keys(record)
          .sort()
          .map((key) => [key, record[key]]),
      );
    }
    return value;
  });
}

function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value);
  return prototype === null || prototype === Object.prototype;
}

/**
 * TanStack Query options over a Plant Store client:
 *
 * ```ts
 * const plants = createPlantStoreQueries(client);
 * const page = useQuery(plants.page({ limit: 20 }));
 * const all = useInfiniteQuery(plants.infinite({ limit: 50 }));
 * const create = useMutation(plants.create(queryClient));
 * ```
 *
 * Every option turns TanStack's retry off: the SDK already retries 429, 503 and network failures with backoff and
 * Retry-After, and never retries a 4xx, so TanStack's 3 retries on top would only multiply the requests.
 */
export function createPlantStoreQueries(
  client: PlantStoreClient,
  options: PlantStoreQueriesOptions = {},
): PlantStoreQueries {
  const scope = options.scope ?? 'default';
  const keys: PlantStoreQueryKeys = {
    all: ['plant-store', scope],
    lists: () => ['plant-store', scope, 'plants'],
    page: (query = {}) =>
      ['plant-store', scope, 'plants', 'page', query] as unknown as ReturnType<PlantStoreQueryKeys['page']>,
    infinite: (query = {}) =>
      ['plant-store', scope, 'plants', 'infinite', query] as unknown as ReturnType<PlantStoreQueryKeys['infinite']>,
  };
  const invalidateLists = (queryClient: QueryClient) => () => queryClient.invalidateQueries({ queryKey: keys.lists() });
  return {
    keys,
    page: (query = {}, call = {}) => ({
      queryKey: keys.page(query),
      queryFn: ({ signal }) => client.plants.listPage(query, { ...call, signal }),
      queryKeyHashFn: hashPlantStoreKey,
      retry: false,
    }),
    infinite: (query = {}, call = {}) => ({
      queryKey: keys.infinite(query),
      queryFn: ({ signal, pageParam }) =>
        client.plants.listPage(pageParam === undefined ? query : { ...query, cursor: pageParam }, { ...call, signal }),
      initialPageParam: undefined,
      getNextPageParam: (last) => last.nextCursor,
      queryKeyHashFn: hashPlantStoreKey,
      retry: false,
    }),
    create: (queryClient, call = {}) => ({
      mutationKey: [...keys.all, 'plants', 'create'],
      mutationFn: (plant) => client.plants.create(plant, call),
      onSuccess: invalidateLists(queryClient),
      retry: false,
    }),
    delete: (queryClient, call = {}) => ({
      mutationKey: [...keys.all, 'plants', 'delete'],
      mutationFn: (id) => client.plants.delete(id, call),
      onSuccess: invalidateLists(queryClient),
      retry: false,
    }),
  };
}
