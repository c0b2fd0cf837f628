// createPlantStoreClient: the typed client. `plants.*` resolve to data and throw PlantStoreError; `raw` is the
// openapi-fetch client over the same transport, for the `{ data, error, response }` form.
import type { NewPlant, Plant, PlantId, paths, QueryOf } from '@plant-store/contract';
import createClient, { type Client, defaultPathSerializer, type Middleware } from 'openapi-fetch';
import { errorFromResponse } from './errors.js';
import { int64Text, stringifyExact } from './int64.js';
import { nextLink } from './link.js';
import {
  type CallOptions,
  createTransport,
  defaultSleep,
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
  retry?: RetryOptions;
  /** openapi-fetch middleware (request ids, logging, ...), run on every request. */
  middleware?: Middleware[];
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** Test seams: how to wait between retries and where jitter comes from. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
}

/** What `list` and `listPage` ask for: the contract's query of getPlants (`limit` 1 to 1000, `cursor`). */
export type ListQuery = NonNullable<QueryOf<'getPlants'>>;

export interface ListAllQuery {
  /** Plants fetched per request, 1 to 1000 (server default 100). Not a cap on the total: listAll yields them all. */
  pageSize?: ListQuery['limit'];
}

export interface PlantPage {
  plants: Plant[];
  /** Pass as `cursor` for the next page; undefined on the last page. */
  nextCursor: string | undefined;
}

export interface PlantStoreClient {
  plants: {
    /** Creates a plant; resolves to it as stored. Throws ConflictError when the id is taken. */
    create(plant: NewPlant, options?: CallOptions): Promise<Plant>;
    /** One page of plants (ascending by id); `cursor` is a `nextCursor` from `listPage`. */
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

  // Per-call timeout and signal need their own transport; the client-wide one serves the rest.
  const perCall = (call: CallOptions | undefined) =>
    call?.signal || call?.timeoutMs !== undefined
      ? { fetch: createTransport(transportOptions, call), ...(call.signal ? { signal: call.signal } : {}) }
      : {};

  async function listPage(query: ListQuery = {}, call?: CallOptions): Promise<PlantPage> {
    const { data, error, response } = await raw.GET('/plants', { params: { query }, ...perCall(call) });
    if (data === undefined) throw errorFromResponse(response, error);
    // Only the cursor is taken from the link: the next request goes to baseUrl, whatever origin the link names.
    const next = nextLink(response.headers.get('link'), response.url || `${baseUrl}/plants`);
    return { plants: data, nextCursor: next?.searchParams.get('cursor') ?? undefined };
  }

  return {
    raw,
    plants: {
      async create(plant, call) {
        const { data, error, response } = await raw.POST('/plants', { body: plant, ...perCall(call) });
        if (data === undefined) throw errorFromResponse(response, error);
        return data;
      },
      listPage,
      async list(query, call) {
        return (await listPage(query, call)).plants;
      },
      async *listAll(query = {}, call) {
        const limit = query.pageSize === undefined ? {} : { limit: query.pageSize };
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
