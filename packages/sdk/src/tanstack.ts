// @plant-store/sdk/tanstack: TanStack Query options for every adapter (React, Vue, Solid, Svelte, Angular, core),
// built from the contract's generated SDK rows like the client's methods: one page and infinite lists of the paged
// list that follow the Link cursor, a query for every other GET, a mutation for every other method that invalidates
// its resource's queries, TanStack's own retry off (the SDK retries what is safe to), and query-key hashing that
// survives bigint ids. Types only from @tanstack/query-core (an optional peer): this module adds no TanStack code to
// a bundle.
import { SDK_OPERATIONS, type SdkOperationFacts } from '@plant-store/contract';
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
import type { ListQuery, PlantPage, PlantStoreClient } from './index.js';
import type { AnswerOf, ArgsOf, SdkRow, Simplify, UnionToIntersection } from './resource-types.js';
import type { CallOptions } from './transport.js';

/** What an infinite list asks for: the page size; the cursor comes from each page's Link header. */
export type InfiniteListQuery = Omit<ListQuery, 'cursor'>;

/** Call options the helpers pass on: everything but `signal`, which TanStack provides (and uses to cancel). */
export type QueryCallOptions = Omit<CallOptions, 'signal'>;

type PagedRow = Extract<SdkRow, { paged: true }>;
type KeyPrefix<Resource extends string> = readonly ['plant-store', string, Resource];

/** The key of a GET's query: its resource, its name and its arguments, tagged with its data and error. */
type QueryKeyOf<Row extends SdkRow> = DataTag<
  readonly ['plant-store', string, Row['resource'], Row['name'], ...ArgsOf<Row>],
  AnswerOf<Row>,
  PlantStoreSdkError
>;

/** What a mutation is called with: its one argument, or the tuple of them (path parameters, body, query). */
type VariablesOf<Row extends SdkRow> = ArgsOf<Row> extends [infer Only] ? Only : ArgsOf<Row>;

type QueryKeys<Row extends SdkRow> = Row extends SdkRow
  ? { [K in Row['name']]: (...args: ArgsOf<Row>) => QueryKeyOf<Row> }
  : never;
type QueryHelpers<Row extends SdkRow> = Row extends SdkRow
  ? {
      [K in Row['name']]: (
        ...args: [...ArgsOf<Row>, call?: QueryCallOptions]
      ) => QueryObserverOptions<AnswerOf<Row>, PlantStoreSdkError, AnswerOf<Row>, AnswerOf<Row>, QueryKeyOf<Row>>;
    }
  : never;
type MutationHelpers<Row extends SdkRow> = Row extends SdkRow
  ? {
      [K in Row['name']]: (
        queryClient: QueryClient,
        call?: QueryCallOptions,
      ) => MutationOptions<AnswerOf<Row>, PlantStoreSdkError, VariablesOf<Row>>;
    }
  : never;

/**
 * The query keys, all under `['plant-store', scope]`: invalidate `lists()` to refetch every list of plants (and every
 * other query of their resource). Each GET of the contract has its key under its name: `keys.get(id)`.
 */
export type PlantStoreQueryKeys = Simplify<
  {
    /** Every query of this client: `['plant-store', scope]`. */
    all: readonly ['plant-store', string];
    /** Every query of the paged list's resource: its pages, infinite lists and other GETs. */
    lists(): KeyPrefix<PagedRow['resource']>;
    /** One page of the list for `query`. */
    page(
      query?: ListQuery,
    ): DataTag<readonly [...KeyPrefix<PagedRow['resource']>, 'page', ListQuery], PlantPage, PlantStoreSdkError>;
    /** The infinite list for `query`. */
    infinite(
      query?: InfiniteListQuery,
    ): DataTag<
      readonly [...KeyPrefix<PagedRow['resource']>, 'infinite', InfiniteListQuery],
      InfiniteData<PlantPage, string | undefined>,
      PlantStoreSdkError
    >;
  } & UnionToIntersection<QueryKeys<Extract<SdkRow, { paged: false; method: 'GET' }>>>
>;

/**
 * The options {@link createPlantStoreQueries} returns, ready for `useQuery`, `useInfiniteQuery` and `useMutation`:
 * `page` and `infinite` for the paged list, a query under its name for every other GET, and a mutation under its
 * name for every other operation (`create`, `delete`), which invalidates its resource's queries on success.
 */
export type PlantStoreQueries = Simplify<
  {
    /** The query keys these options use. */
    keys: PlantStoreQueryKeys;
    /** Options for one page of the list (`listPage`): data is `{ plants, nextCursor }`. */
    page(
      query?: ListQuery,
      call?: QueryCallOptions,
    ): QueryObserverOptions<
      PlantPage,
      PlantStoreSdkError,
      PlantPage,
      PlantPage,
      ReturnType<PlantStoreQueryKeys['page']>
    >;
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
  } & UnionToIntersection<
    QueryHelpers<Extract<SdkRow, { paged: false; method: 'GET' }>> | MutationHelpers<Exclude<SdkRow, { method: 'GET' }>>
  >
>;

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
  const all = ['plant-store', scope] as const;
  type Method = (...args: unknown[]) => Promise<unknown>;
  const keys: Record<string, unknown> = { all };
  const helpers: Record<string, unknown> = { keys };
  for (const row of SDK_OPERATIONS as readonly SdkOperationFacts[]) {
    const methods = (client as unknown as Record<string, Record<string, Method>>)[row.resource]!;
    const prefix = [...all, row.resource];
    const arity = row.pathParams.length + Number(row.body) + Number(row.query);
    if (row.paged) {
      const listPage = methods[`${row.name}Page`]!;
      const page = (query = {}) => [...prefix, 'page', query];
      const infinite = (query = {}) => [...prefix, 'infinite', query];
      Object.assign(keys, { lists: () => prefix, page, infinite });
      helpers.page = (query = {}, call: QueryCallOptions = {}) => ({
        queryKey: page(query),
        queryFn: ({ signal }: { signal: AbortSignal }) => listPage(query, { ...call, signal }),
        queryKeyHashFn: hashPlantStoreKey,
        retry: false,
      });
      helpers.infinite = (query = {}, call: QueryCallOptions = {}) => ({
        queryKey: infinite(query),
        queryFn: ({ signal, pageParam }: { signal: AbortSignal; pageParam: string | undefined }) =>
          listPage(pageParam === undefined ? query : { ...query, cursor: pageParam }, { ...call, signal }),
        initialPageParam: undefined,
        // A cursor this list has already followed would send it round the same pages: the list ends there instead.
        getNextPageParam: (last: PlantPage, _pages: unknown, _param: unknown, params: unknown[]) =>
          params.includes(last.nextCursor) ? undefined : last.nextCursor,
        queryKeyHashFn: hashPlantStoreKey,
        retry: false,
      });
    } else if (row.method === 'GET') {
      const key = (...args: unknown[]) => [...prefix, row.name, ...args];
      keys[row.name] = key;
      helpers[row.name] = (...args: unknown[]) => {
        const values = args.slice(0, arity);
        const call = (args[arity] ?? {}) as QueryCallOptions;
        return {
          queryKey: key(...values),
          queryFn: ({ signal }: { signal: AbortSignal }) => methods[row.name]!(...values, { ...call, signal }),
          queryKeyHashFn: hashPlantStoreKey,
          retry: false,
        };
      };
    } else {
      helpers[row.name] = (queryClient: QueryClient, call: QueryCallOptions = {}) => ({
        mutationKey: [...prefix, row.name],
        mutationFn: (variables: unknown) =>
          methods[row.name]!(...(arity === 1 ? [variables] : ((variables as unknown[] | undefined) ?? [])), call),
        onSuccess: () => queryClient.invalidateQueries({ queryKey: prefix }),
        retry: false,
      });
    }
  }
  return helpers as unknown as PlantStoreQueries;
}
