// createPlantStoreClient: the typed client. Its resources (`plants.*`, built from the contract's generated SDK rows)
// resolve to data and throw PlantStoreError; `raw` is the openapi-fetch client over the same transport, for the
// `{ data, error, response }` form.
import type { PlantId, paths } from '@plant-store/contract';
import createClient, { type Client, defaultPathSerializer, type Middleware } from 'openapi-fetch';
import { int64Text, stringifyExact } from './int64.js';
import type { PerCallInit, RequestContext } from './operation-method.js';
import type { PagedAllQueryOf, PagedQueryOf, PageOf, PlantStoreResources, SdkRow } from './resource-types.js';
import { createResources } from './resources.js';
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

type PagedRow = Extract<SdkRow, { paged: true }>;

/** What `list` and `listPage` ask for: the paged list's query (`limit` within `PLANT_STORE_LIMITS.limit`, `cursor`). */
export type ListQuery = PagedQueryOf<PagedRow>;

/** What `listAll` asks for: `pageSize` (or `limit`, the same thing), never a cursor. */
export type ListAllQuery = PagedAllQueryOf<PagedRow>;

/** One page of plants and where the next begins: `{ plants, nextCursor }`. */
export type PlantPage = PageOf<PagedRow>;

/**
 * The client: one method per operation of the contract under its resource (`plants.create`, `plants.list`,
 * `plants.listPage`, `plants.listAll`, `plants.delete`), named and typed from openapi.yaml by `pnpm gen`; they resolve
 * to data and throw a PlantStoreSdkError subclass. `raw` gives values.
 */
export interface PlantStoreClient extends PlantStoreResources {
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
  const perCall = (call: CallOptions | undefined): PerCallInit => ({
    ...(call?.signal || call?.timeoutMs !== undefined || call?.maxRetries !== undefined
      ? { fetch: createTransport(transportOptions, call), ...(call.signal ? { signal: call.signal } : {}) }
      : {}),
    ...(call?.headers ? { headers: call.headers } : {}),
  });
  const resources = createResources({
    raw: raw as unknown as RequestContext['raw'],
    perCall,
    baseUrl,
    pageCacheSize: options.pageCacheSize ?? 50,
  });
  return { ...resources, raw };
}
