// An in-memory Plant Store behind a `fetch`: the service's own handlers over the service's own memory engine, behind
// the HTTP edge of the service (routing, bearer tokens with scopes, body reading and the request checks), with 429 or
// 5xx on demand. Only web-platform globals (Request, Response, URL, crypto): it runs in browsers too.
//
// What the service does is not copied here. Each operation is answered by its handler from @plant-store/core (the
// map the server binds, `satisfies Handlers`, so an operation the contract gains is answered with no edit here), over
// that package's memory engine, with its Idempotency-Key rules and bearer wording. The routes, scopes, body limit and
// bounds are the contract's generated facts, and the request checks with their messages and `details` are the
// contract's functions, as the server runs them. What stays here is what the server's HTTP layer (Fastify and its
// http/ folder) does around them: routing, reading the body, looking the token up, the rate limit and the headers of
// every answer, its refusals worded by the contract's edge-refusals.ts, as the server's are. The SDK's README says
// where that differs from the service.
import {
  ApiError,
  BODY_EMPTY_MESSAGE,
  BODY_LIMIT_BYTES,
  BODY_NOT_UTF8_MESSAGE,
  BODY_REQUIRED_MESSAGE,
  BODY_TOO_LARGE_MESSAGE,
  checkBody,
  checkParameters,
  checkQueryNames,
  type ErrorBody,
  JsonBodyError,
  methodNotAllowedMessage,
  NOT_JSON_MESSAGE,
  noRouteMessage,
  OPERATIONS,
  type OperationFacts,
  type OperationId,
  type Problem,
  parseJsonExact,
  pathPattern,
  rateLimitMessage,
  type Scope,
} from '@plant-store/contract';
import {
  bearerTokenOf,
  handlers,
  insufficientScope,
  KEYED_OPERATIONS,
  keepRefusal,
  malformedKeyError,
  openMemoryPlants,
  type PlantStore,
  queryTokenRefused,
  refusalFingerprintOf,
  TOKEN_NOT_RECOGNISED,
  unauthorized,
} from '@plant-store/core';

/** A scope a fake token may carry: `read` lists, `write` creates and deletes (the contract's scopes). */
export type FakeScope = Scope;

/** A plant to seed, as the service stores it: its id (number or bigint), name and optional tag. */
export interface SeedPlant {
  /** The plant's id: a safe-integer number or any int64 bigint. */
  id: number | bigint;
  /** Within `PLANT_STORE_LIMITS.name`. */
  name: string;
  /** Within `PLANT_STORE_LIMITS.tag`, optional. */
  tag?: string;
}

/** An answer to give instead of the contract's, for testing retries and error handling. */
export interface FakeFailure {
  /** The status to answer with, e.g. 429, 500, 503. */
  status: number;
  /** Sent as `Retry-After` (seconds) when given. */
  retryAfterSeconds?: number;
  /** The Error body's message (a sensible default per status otherwise). */
  message?: string;
  /** How many requests in a row get it (default 1). */
  times?: number;
}

/** Options of {@link createFakePlantStore}. */
export interface FakePlantStoreOptions {
  /** Requests per subject per window before 429 (off unless given), like the service's RATE_LIMIT_MAX. */
  rateLimit?: { max: number; windowMs: number };
  /** The clock, for the rate limit's window; defaults to Date.now. */
  now?: () => number;
}

/** The fake service: hand `fetch` to `createPlantStoreClient`, issue tokens, seed data, script failures. */
export interface FakePlantStore {
  /** A fetch that answers the Plant Store contract from memory; any base URL works. */
  fetch: (input: Request | string | URL, init?: RequestInit) => Promise<Response>;
  /**
   * Issues a bearer token for `subject`, with `read` and `write` unless `scopes` says otherwise: a random one, or
   * `token` itself when given (an RFC 6750 token: letters, digits and `-._~+/`, `=` at the end).
   */
  createToken(options: { subject: string; scopes?: readonly FakeScope[]; token?: string }): string;
  /** Revokes a token: it is answered with 401 "the bearer token is not recognised" from then on, as an unknown one. */
  revokeToken(token: string): void;
  /** Stores plants for `subject` as if it had created them (an id it already has is replaced). */
  seed(subject: string, plants: readonly SeedPlant[]): void;
  /** `subject`'s plants as stored, ascending by id, with their ids (which the API never lists). */
  plantsOf(subject: string): Array<SeedPlant & { id: bigint }>;
  /** Answers the next request(s) with `failure` instead of the contract's answer (after routing, before auth). */
  failNext(failure: FakeFailure): void;
  /** Every request it has answered, oldest first: method, URL and status. */
  readonly requests: ReadonlyArray<{ method: string; url: string; status: number }>;
  /** Forgets every plant, token, scripted failure, rate-limit count and recorded request. */
  reset(): void;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The contract's paths, each with its operations by method. */
const ROUTES = [...new Set(OPERATIONS.map((operation) => operation.path))].map((template) => ({
  // The route's path as the server's handlers get it (Fastify's form, /plants/:id), for the Links they build.
  routePath: template.replace(/\{([^}]+)\}/g, ':$1'),
  ...pathPattern(template),
  operations: new Map<string, OperationFacts>(
    OPERATIONS.filter((operation) => operation.path === template).map((operation) => [operation.method, operation]),
  ),
}));
const DEFAULT_MESSAGES: Record<number, string> = {
  429: 'rate limit exceeded (scripted by the fake)',
  500: 'internal server error; the request id identifies it in the service log',
  503: 'the database is unavailable; retry shortly',
};

/** An answer, as the fake turns it into a Response. */
interface Answer {
  status: number;
  body?: string | Uint8Array;
  headers?: Readonly<Record<string, string>>;
}

/** The Error body of a refusal, as JSON text (the server's error handler writes the same). */
function errorBody(error: ApiError): string {
  const body: ErrorBody = {
    error: error.status,
    message: error.message,
    ...(error.details ? { details: [...error.details] } : {}),
  };
  return JSON.stringify(body);
}

/** A 400 for a broken rule, with the same `details` the service sends. */
const invalid = (problem: Problem) => new ApiError(400, problem.message, {}, [problem.detail]);

const isProblem = (result: object): result is Problem => 'detail' in result;

const CREATE_PLANT = OPERATIONS.find((operation) => operation.operationId === 'createPlant') as OperationFacts;

/** A handler's result, whichever operation's: a status, headers, and a body or its JSON already built. */
type AnyResult = { status: number; headers?: Readonly<Record<string, string>> } & (
  | { body: unknown }
  | { json: string | Uint8Array }
);

/**
 * A handler as the fake calls it, by a run-time operationId. Each handler takes its own operation's input; the map
 * can only be held under this input-erased signature (as the server's bindings hold it), and the fake passes the
 * input the contract's checks built for that very operation.
 */
type AnyHandler = (input: never, deps: { store: PlantStore }) => Promise<AnyResult>;

/** A handler's result as an answer: JSON built by the store or kept for a key, the body serialized, or none. */
function answerOf(result: AnyResult): Answer {
  const headers = result.headers ?? {};
  if ('json' in result) return { status: result.status, body: result.json, headers };
  if (result.body === undefined) return { status: result.status, headers };
  return { status: result.status, body: JSON.stringify(result.body), headers };
}

/** Whether the service reads `token` back from `Authorization: Bearer <token>`. */
function tokenReadable(token: string): boolean {
  try {
    return bearerTokenOf(`Bearer ${token}`) === token;
  } catch {
    return false;
  }
}

function randomText(bytes: number): string {
  const values = new Uint8Array(bytes);
  globalThis.crypto.getRandomValues(values);
  return Array.from(values, (value) => value.toString(16).padStart(2, '0')).join('');
}

/** The body as the service reads it: JSON by its Content-Type, within the body limit, UTF-8, parsed exactly. */
function parseBody(type: string | null, bytes: Uint8Array): unknown {
  if (!type || !/^application\/json\s*(;|$)/i.test(type)) {
    // No body at all: the service's check that a required body was sent, in its words.
    if (bytes.length === 0 && !type) throw new ApiError(400, BODY_REQUIRED_MESSAGE);
    throw new ApiError(415, NOT_JSON_MESSAGE);
  }
  if (bytes.length > BODY_LIMIT_BYTES) throw new ApiError(413, BODY_TOO_LARGE_MESSAGE);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new ApiError(400, BODY_NOT_UTF8_MESSAGE);
  }
  if (text === '') throw new ApiError(400, BODY_EMPTY_MESSAGE);
  try {
    return parseJsonExact(text);
  } catch (error) {
    if (error instanceof JsonBodyError) throw new ApiError(400, error.message);
    throw error;
  }
}

/**
 * An in-memory Plant Store for tests, with no server and no Node imports:
 *
 * ```ts
 * const fake = createFakePlantStore();
 * const client = createPlantStoreClient({ baseUrl: 'http://plant-store.test', token: fake.createToken({ subject: 'alice' }), fetch: fake.fetch });
 * ```
 */
export function createFakePlantStore(options: FakePlantStoreOptions = {}): FakePlantStore {
  const now = options.now ?? Date.now;
  const tokens = new Map<string, { subject: string; scopes: readonly FakeScope[]; revoked: boolean }>();
  // The plants and the answers kept for Idempotency-Keys: the service's memory engine, which the handlers run on.
  const store = openMemoryPlants();
  const failures: FakeFailure[] = [];
  const windows = new Map<string, { start: number; count: number }>();
  const requests: Array<{ method: string; url: string; status: number }> = [];

  function authenticate(
    request: Request,
    url: URL,
    operation: OperationFacts,
  ): { subject: string; scopes: readonly Scope[] } {
    if (url.searchParams.has('access_token')) throw queryTokenRefused();
    const token = tokens.get(bearerTokenOf(request.headers.get('authorization')));
    // Revoked is answered as unknown, as the service does: a 401 never tells whether a token exists.
    if (!token || token.revoked) throw unauthorized(TOKEN_NOT_RECOGNISED, 'invalid_token');
    if (operation.scope !== null && !token.scopes.includes(operation.scope)) {
      throw insufficientScope(operation.operationId, operation.scope);
    }
    return { subject: token.subject, scopes: token.scopes };
  }

  function rateLimit(subject: string): void {
    if (!options.rateLimit || options.rateLimit.max <= 0) return;
    const { max, windowMs } = options.rateLimit;
    const at = now();
    const current = windows.get(subject);
    const window = current && at - current.start < windowMs ? current : { start: at, count: 0 };
    windows.set(subject, window);
    window.count++;
    if (window.count <= max) return;
    const seconds = Math.max(1, Math.ceil((window.start + windowMs - at) / 1000));
    throw new ApiError(429, rateLimitMessage(max, seconds), {
      'retry-after': String(seconds),
    });
  }

  /**
   * The operation's body, checked by the contract's rules (the body before the key, as the service's validation
   * has it). A 400 for the body of a keyed request with a well-formed key, from a principal, is that key's first
   * answer, kept and replayed by the service's own rules: then that answer comes back instead of a body.
   */
  async function checkedBody(
    request: Request,
    operation: OperationFacts,
    subject: string | null,
  ): Promise<{ body: unknown } | { kept: Answer }> {
    if (operation.body === null) return { body: undefined };
    const keyed = Object.hasOwn(KEYED_OPERATIONS, operation.operationId);
    const key = keyed ? request.headers.get('idempotency-key') : null;
    const keyError = key === null ? undefined : malformedKeyError(key);
    const wellFormedKey = key !== null && keyError === undefined;
    const bytes = new Uint8Array(await request.arrayBuffer());
    const type = request.headers.get('content-type');
    // An optional body not sent is no body, and nothing to check (the server validates only a body that was sent).
    if (!operation.body.required && bytes.length === 0 && !type) return { body: undefined };
    try {
      const checked = checkBody(operation, parseBody(type, bytes));
      if (isProblem(checked)) throw invalid(checked);
      if (keyError) throw keyError;
      return { body: checked.body };
    } catch (error) {
      if (subject === null || !wellFormedKey || !(error instanceof ApiError) || error.status !== 400) throw error;
      const fingerprint = await refusalFingerprintOf(operation.operationId, bytes);
      const kept = await keepRefusal(store, subject, key, fingerprint, { status: 400, json: errorBody(error) });
      return { kept: { status: kept.status, body: kept.json, headers: kept.headers } };
    }
  }

  async function answer(request: Request, url: URL): Promise<Answer> {
    const path = url.pathname;
    const route = ROUTES.find(({ pattern }) => pattern.test(path));
    if (!route) throw new ApiError(404, noRouteMessage(request.method, path));
    const operation = route.operations.get(request.method);
    if (!operation) {
      const methods = [...route.operations.keys()];
      throw new ApiError(405, methodNotAllowedMessage(request.method, path, methods), {
        allow: methods.join(', '),
      });
    }
    const failure = failures[0];
    if (failure) {
      if ((failure.times ?? 1) <= 1) failures.shift();
      else failure.times = (failure.times ?? 1) - 1;
      throw new ApiError(
        failure.status,
        failure.message ?? DEFAULT_MESSAGES[failure.status] ?? `scripted failure ${failure.status}`,
        failure.retryAfterSeconds === undefined ? {} : { 'retry-after': String(failure.retryAfterSeconds) },
      );
    }
    // An open operation (no security requirement in the contract) is answered without a token, its handler given no
    // principal, as the server's bindings do.
    const principal = operation.security.length === 0 ? null : authenticate(request, url, operation);
    const matched = route.pattern.exec(path) ?? [];
    const pathValues = Object.fromEntries(
      route.names.map((name, index) => [name, decodeURIComponent(matched[index + 1] ?? '')]),
    );
    // Unknown query parameters (and declared ones given twice) are refused, by the rule the service runs.
    const names = checkQueryNames(operation, url.searchParams.keys());
    if (names) throw invalid(names);
    // Counted once the token and the query's names are checked, as the service counts (before the body is read).
    if (principal) rateLimit(principal.subject);
    const parameters = checkParameters(operation, pathValues, url.searchParams);
    if (isProblem(parameters)) throw invalid(parameters);
    const checked = await checkedBody(request, operation, principal?.subject ?? null);
    if ('kept' in checked) return checked.kept;
    // The service's own handler answers, as the server's bindings call it after validation.
    const handler = handlers[operation.operationId as OperationId] as AnyHandler;
    const input = {
      principal,
      body: checked.body,
      params: parameters.params,
      query: parameters.query,
      headers: Object.fromEntries(request.headers),
      path: route.routePath,
    };
    return answerOf(await handler(input as never, { store }));
  }

  async function fetch(input: Request | string | URL, init?: RequestInit): Promise<Response> {
    const request = input instanceof Request && init === undefined ? input : new Request(input, init);
    request.signal?.throwIfAborted();
    const url = new URL(request.url);
    const incomingId = request.headers.get('x-request-id');
    const headers: Record<string, string> = {
      'x-request-id': incomingId && REQUEST_ID.test(incomingId) ? incomingId : `fake-${randomText(8)}`,
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-store',
    };
    let result: Answer;
    try {
      result = await answer(request, url);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      result = { status: error.status, body: errorBody(error), headers: error.headers };
    }
    requests.push({ method: request.method, url: request.url, status: result.status });
    if (result.body !== undefined) headers['content-type'] = 'application/json; charset=utf-8';
    // Cast: a page's bytes are never in shared memory, which is all that keeps a Uint8Array from being a BodyInit.
    return new Response((result.body ?? null) as BodyInit | null, {
      status: result.status,
      headers: { ...headers, ...result.headers },
    });
  }

  return {
    fetch,
    requests,
    createToken({ subject, scopes = ['read', 'write'], token = `fake_${randomText(16)}` }) {
      // The service's own reading of an Authorization header: a token it could never find in one is refused here.
      if (!tokenReadable(token)) {
        throw new TypeError(`createToken: ${JSON.stringify(token)} is not a bearer token (RFC 6750)`);
      }
      tokens.set(token, { subject, scopes: [...scopes], revoked: false });
      return token;
    },
    revokeToken(token) {
      const known = tokens.get(token);
      if (known) known.revoked = true;
    },
    seed(subject, seeded) {
      for (const plant of seeded) {
        // A seed is a NewPlant, checked by the contract's rules as a create's body is.
        const checked = checkBody(CREATE_PLANT, plant);
        if (isProblem(checked)) throw new TypeError(`seed: ${checked.message}`);
        const { id, name, tag } = checked.body as { id: number | bigint; name: string; tag?: string };
        store.put(subject, { id: BigInt(id), name, ...(tag === undefined ? {} : { tag }) });
      }
    },
    plantsOf(subject) {
      return store.plantsOf(subject);
    },
    failNext(failure) {
      failures.push({ ...failure });
    },
    reset() {
      tokens.clear();
      store.clear();
      failures.length = 0;
      windows.clear();
      requests.length = 0;
    },
  };
}
