// createPlantStoreClient: the typed client. `plants.*` resolve to data and throw PlantStoreError; `raw` is the
// openapi-fetch client over the same transport, for the `{ data, error, response }` form.
import type { NewPlant, Plant, PlantId, paths, QueryOf } from '@plant-store/contract';
import createClient, { type Client, defaultPathSerializer, type Middleware } from 'openapi-fetch';
import { errorFromResponse } from './errors.js';
import { newIdempotencyKey } from './idempotency-key.js';
import { int64Text, stringifyExact } from './int64.js';
import { nextLink } from './link.js';
import {
  type CallOptions,
  createTransport,
  defaultSleep,
  type RetryInfo,
  type RetryOptions,
  type TokenSource,
  type TransportOptions,
} from './transport.js';

export interface PlantStoreClientOptions {
  /** Where the service runs, e.g. https://plants.example.com. */
  baseUrl: string;
  /** The bearer token, or a function returning it (called before every request, so it may refresh). */
  token: TokenSource;
  /** A fetch implementation; defaults to the global fetch. */
  fetch?: (request: Request) => Promise<Response>;
  /** Per-attempt timeout in ms (default 10000). */
  timeoutMs?: number;
  /** How 429, 503, network failures and timeouts are retried (see RetryOptions for the defaults). */
  retry?: RetryOptions;
  /**
   * Told before every retry, with the attempt about to be made, the wait before it and why: log it, or show "retrying
   * in 4 s" instead of a silent stall. Throwing from it does not stop the retry; use a `signal` for that.
   */
  onRetry?: (info: RetryInfo) => void;
  /**
   * On a 401, call the `token` function again with `{ refresh: true }` and replay the request once with what it
   * returns (default false; needs `token` to be a function). A second 401 is thrown as AuthenticationError.
   */
  refreshOn401?: boolean;
  /** openapi-fetch middleware (request ids, logging, ...), run on every request. */
  middleware?: Middleware[];
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** Test seam: how to wait between retries (must reject when `signal` aborts); defaults to a timer. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Test seam: where backoff jitter comes from, a number in [0, 1); defaults to Math.random. */
  random?: () => number;
  /**
   * Pages `list` and `listPage` keep with their ETag (default 50; 0 keeps none): asked for again, a page is sent with
   * `If-None-Match`, and the service's 304 is answered from the kept page, without transferring it again.
   */
  pageCacheSize?: number;
}

/** What `list` and `listPage` ask for: the contract's query of getPlants (`limit` within `PLANT_STORE_LIMITS.limit`, `cursor`). */
export type ListQuery = NonNullable<QueryOf<'getPlants'>>;

export interface ListAllQuery {
  /** Plants fetched per request, within `PLANT_STORE_LIMITS.limit` (the contract's default when absent). Not a cap on
   * the total: listAll yields them all. */
  pageSize?: ListQuery['limit'];
  /** The same as `pageSize`, under the name `list` uses; give one or the other. */
  limit?: ListQuery['limit'];
}

/** One page of plants and where the next begins. */
export interface PlantPage {
  /** The plants of this page, ascending by id. */
  plants: Plant[];
  /** Pass as `cursor` for the next page; undefined on the last page. */
  nextCursor: string | undefined;
}

/** The client: `plants.*` resolve to data and throw a PlantStoreSdkError subclass; `raw` gives values. */
export interface PlantStoreClient {
  /** The plant operations of the contract: createPlant, getPlants, deletePlant. */
  plants: {
    /**
     * Creates a plant; resolves to it as stored. Throws ConflictError when the id is taken. Sent with a fresh
     * Idempotency-Key (or `options.idempotencyKey`), so it is retried after a lost answer without creating twice.
     */
    create(plant: NewPlant, options?: CallOptions): Promise<Plant>;
    /**
     * One page of plants (ascending by id); `cursor` is a `nextCursor` from `listPage`. A page asked for again is
     * revalidated with its ETag: while it is unchanged the service answers 304 and the kept page is returned.
     */
    list(query?: ListQuery, options?: CallOptions): Promise<Plant[]>;
    /** One page of plants and the cursor of the next (undefined on the last page). */
    listPage(query?: ListQuery, options?: CallOptions): Promise<PlantPage>;
    /**
     * Every plant, page after page, following the server's `Link: <...>; rel="next"` headers:
     * `for await (const plant of client.plants.listAll({ pageSize: 500 }))`. `options` apply to each page's request.
     */
    listAll(query?: ListAllQuery, options?: CallOptions): AsyncGenerator<Plant, void, undefined>;
    /** Deletes a plant. Throws NotFoundError when this owner has no plant with that id. */
    delete(id: PlantId, options?: CallOptions): Promise<void>;
  };
  /** The typed openapi-fetch client: `await client.raw.GET('/plants')` gives `{ data, error, response }`. */
  raw: Client<paths>;
}

/**
 * A client for the Plant Store API at `baseUrl`, authenticating with `token`:
 * `createPlantStoreClient({ baseUrl: 'https://plants.example.com', token: () => auth.getToken() })`. Create one per
 * signed-in user and reuse it; it holds no connection of its own.
 */
export function createPlantStoreClient(options: PlantStoreClientOptions): PlantStoreClient {
  const transportOptions: TransportOptions = {
    token: options.token,
    fetch: options.fetch ?? ((request) => globalThis.fetch(request)),
    timeoutMs: options.timeoutMs ?? 10_000,
    retry: {
      maxRetries: options.retry?.maxRetries ?? 2,
      baseDelayMs: options.retry?.baseDelayMs ?? 250,
      maxDelayMs: options.retry?.maxDelayMs ?? 8_000,
      retryCreateOnNetworkError: options.retry?.retryCreateOnNetworkError ?? false,
    },
    onRetry: options.onRetry,
    refreshOn401: options.refreshOn401 ?? false,
    sleep: options.sleep ?? defaultSleep,
    random: options.random ?? Math.random,
  };
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  // Pages kept with their ETags, by query; Map order is use order, so the first key is the least recently used.
  const pages = new Map<string, { etag: string; page: PlantPage }>();
  const keepPages = options.pageCacheSize ?? 50;
  const raw = createClient<paths>({
    baseUrl,
    fetch: createTransport(transportOptions),
    bodySerializer: stringifyExact,
    // Ids go into the path as exact decimal text, checked like the body's: the raw client refuses a rounded one too.
    pathSerializer: (path, params) =>
      defaultPathSerializer(
        path,
        params.id === undefined ? params : { ...params, id: int64Text(params.id as PlantId) },
      ),
    ...(options.headers ? { headers: options.headers } : {}),
  });
  if (options.middleware?.length) raw.use(...options.middleware);

  // Per-call signal, timeout and retries need their own transport; the client-wide one serves the rest. Per-call
  // headers are openapi-fetch's own (merged over the client's).
  const perCall = (
    call: CallOptions | undefined,
  ): { fetch?: (input: Request) => Promise<Response>; signal?: AbortSignal; headers?: Record<string, string> } => ({
    ...(call?.signal || call?.timeoutMs !== undefined || call?.maxRetries !== undefined
      ? { fetch: createTransport(transportOptions, call), ...(call.signal ? { signal: call.signal } : {}) }
      : {}),
    ...(call?.headers ? { headers: call.headers } : {}),
  });

  async function listPage(query: ListQuery = {}, call?: CallOptions): Promise<PlantPage> {
    const key = `${query.limit}|${query.cursor}`;
    const kept = pages.get(key);
    pages.delete(key);
    const options = perCall(call);
    if (kept) options.headers = { 'if-none-match': kept.etag, ...options.headers };
    const { data, error, response } = await raw.GET('/plants', { params: { query }, ...options });
    let page = kept?.page;
    if (response.status !== 304 || !page) {
      if (data === undefined) throw errorFromResponse(response, error);
      // Only the cursor is taken from the link: the next request goes to baseUrl, whatever origin the link names.
      const next = nextLink(response.headers.get('link'), response.url || `${baseUrl}/plants`);
      page = { plants: data, nextCursor: next?.searchParams.get('cursor') ?? undefined };
    }
    const etag = response.headers.get('etag');
    if (etag && keepPages > 0) {
      pages.set(key, { etag, page });
      if (pages.size > keepPages) pages.delete(pages.keys().next().value!);
    }
    // A copy: the caller may change the array it gets, the kept page must not change with it.
    return { ...page, plants: [...page.plants] };
  }

  return {
    raw,
    plants: {
      async create(plant, call) {
        const key = call?.idempotencyKey === undefined ? newIdempotencyKey() : call.idempotencyKey;
        const options = perCall(call);
        if (key !== null) options.headers = { ...options.headers, 'idempotency-key': key };
        const { data, error, response } = await raw.POST('/plants', { body: plant, ...options });
        if (data === undefined) throw errorFromResponse(response, error);
        return data;
      },
      listPage,
      async list(query, call) {
        return (await listPage(query, call)).plants;
      },
      async *listAll(query = {}, call) {
        const size = query.pageSize ?? query.limit;
        if (query.pageSize !== undefined && query.limit !== undefined && query.pageSize !== query.limit) {
          throw new TypeError('listAll takes pageSize or limit (the same thing), not two different values');
        }
        const limit = size === undefined ? {} : { limit: size };
        let cursor: string | undefined;
        do {
          const page = await listPage(cursor === undefined ? limit : { ...limit, cursor }, call);
          yield* page.plants;
          cursor = page.nextCursor;
        } while (cursor !== undefined);
      },
      async delete(id, call) {
        const { error, response } = await raw.DELETE('/plants/{id}', { params: { path: { id } }, ...perCall(call) });
        // openapi-fetch answers a 204 without reading a body.
        if (!response.ok) throw errorFromResponse(response, error);
      },
    },
  };
}
