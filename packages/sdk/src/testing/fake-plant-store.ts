// An in-memory Plant Store behind a `fetch`: the contract's three operations with the service's validation rules and
// messages, bearer tokens with scopes, ownership by subject, paging with Link, exact int64 ids, and 429 or 5xx on
// demand. Only web-platform globals (Request, Response, URL, crypto.getRandomValues): it runs in browsers too.
//
// What the contract says is not copied here: routes, scopes, the body limit, every bound and the order rules are
// checked in come from the contract's generated facts (OPERATIONS, BODY_LIMIT_BYTES), and the checks, their messages
// and `details`, the cursor codec and the Link builder are the very functions the service runs.
import {
  BODY_LIMIT_BYTES,
  BODY_REQUIRED_MESSAGE,
  CURSOR_NOT_ISSUED_MESSAGE,
  checkBody,
  checkParameters,
  checkQueryNames,
  decodeCursor,
  type ErrorDetail,
  JsonBodyError,
  nextPageLink,
  OPERATIONS,
  type OperationFacts,
  type OperationId,
  type Plant,
  type Problem,
  parseJsonExact,
  type Scope,
} from '@plant-store/contract';

/**
 * The operations this fake answers, each by its own branch in `answer`. An operation the contract gains is a compile
 * error here until the fake answers it (as the server's handler map is), never a silent answer of another operation.
 */
const ANSWERED = { createPlant: true, deletePlant: true, getPlants: true } as const satisfies Record<OperationId, true>;

const IDEMPOTENCY_KEY = /^[!-~]{1,255}$/;
const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** FNV-1a of `text`, in hex: tells queries and subjects apart in an ETag. */
function hash(text: string): string {
  let value = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) value = Math.imul(value ^ text.charCodeAt(i), 0x01000193);
  return (value >>> 0).toString(16);
}

/** A scope a fake token may carry: `read` lists, `write` creates and deletes (the contract's scopes). */
export type FakeScope = Scope;

interface ValidPlant {
  id: bigint;
  name: string;
  tag?: string;
}

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
  /** Issues a bearer token for `subject`, with `read` and `write` unless `scopes` says otherwise. */
  createToken(options: { subject: string; scopes?: readonly FakeScope[] }): string;
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
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;
const REALM = 'realm="plant-store"';

// /plants/{id} -> ^/plants/([^/]+)$, and the names of its parameters.
function templateToPattern(path: string): { pattern: RegExp; names: string[] } {
  const names = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] as string);
  const literal = path.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'));
  return { pattern: new RegExp(`^${literal.join('([^/]+)')}$`), names };
}

/** The contract's paths, each with its operations by method. */
const ROUTES = [...new Set(OPERATIONS.map((operation) => operation.path))].map((template) => ({
  template,
  ...templateToPattern(template),
  operations: new Map<string, OperationFacts>(
    OPERATIONS.filter((operation) => operation.path === template).map((operation) => [operation.method, operation]),
  ),
}));
const DEFAULT_MESSAGES: Record<number, string> = {
  429: 'rate limit exceeded (scripted by the fake)',
  500: 'internal server error; the request id identifies it in the service log',
  503: 'the database is unavailable; retry shortly',
};

/** An answer the fake gives instead of going on: a status, the Error body's message, extra headers. */
class Refusal {
  constructor(
    readonly status: number,
    readonly message: string,
    readonly headers: Record<string, string> = {},
    readonly details?: ErrorDetail[],
  ) {}
}

/** The Error body of a refusal, as JSON text. */
const errorBody = (refusal: Refusal) =>
  JSON.stringify({
    error: refusal.status,
    message: refusal.message,
    ...(refusal.details ? { details: refusal.details } : {}),
  });

/** A 400 for a broken rule, with the same `details` the service sends. */
const invalid = (problem: Problem) => new Refusal(400, problem.message, {}, [problem.detail]);

const isProblem = (result: object): result is Problem => 'detail' in result;

const CREATE_PLANT = OPERATIONS.find((operation) => operation.operationId === 'createPlant') as OperationFacts;

/** A NewPlant checked by the contract's rules, with its id as the bigint the fake keys plants by. */
function validateNewPlant(body: unknown): { plant: ValidPlant } | Problem {
  const checked = checkBody(CREATE_PLANT, body);
  if (isProblem(checked)) return checked;
  const { id, name, tag } = checked.body as { id: number | bigint; name: string; tag?: string };
  return { plant: { id: BigInt(id), name, ...(tag === undefined ? {} : { tag }) } };
}

function randomText(bytes: number): string {
  const values = new Uint8Array(bytes);
  globalThis.crypto.getRandomValues(values);
  return Array.from(values, (value) => value.toString(16).padStart(2, '0')).join('');
}

function unauthorized(message: string, error?: string): Refusal {
  const challenge = error ? `Bearer ${REALM}, error="${error}", error_description="${message}"` : `Bearer ${REALM}`;
  return new Refusal(401, message, { 'www-authenticate': challenge });
}

const stored = (plant: ValidPlant): Plant => ({
  name: plant.name,
  ...(plant.tag === undefined ? {} : { tag: plant.tag }),
});

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
  const plants = new Map<string, Map<bigint, ValidPlant>>();
  const failures: FakeFailure[] = [];
  const windows = new Map<string, { start: number; count: number }>();
  const requests: Array<{ method: string; url: string; status: number }> = [];
  // Per subject: a version moved by every create and delete (the ETag's), and the answers kept for Idempotency-Keys.
  const versions = new Map<string, number>();
  const kept = new Map<string, { fingerprint: string; status: number; body: string; at: number }>();
  const touch = (subject: string) => versions.set(subject, (versions.get(subject) ?? 0) + 1);

  const plantsFor = (subject: string) => {
    const owned = plants.get(subject) ?? new Map<bigint, ValidPlant>();
    plants.set(subject, owned);
    return owned;
  };

  function authenticate(request: Request, url: URL, operation: OperationFacts): { subject: string } {
    if (url.searchParams.has('access_token')) {
      throw new Refusal(
        400,
        'tokens in the query string are refused; send the token in the Authorization header as "Bearer <token>"',
        { 'www-authenticate': `Bearer ${REALM}, error="invalid_request"` },
      );
    }
    const header = request.headers.get('authorization');
    if (!header) throw unauthorized('missing Authorization header; send "Authorization: Bearer <token>"');
    if (!/^bearer(\s|$)/i.test(header)) throw unauthorized('the Authorization header must use the Bearer scheme');
    const match = BEARER.exec(header);
    if (!match?.[1]) throw unauthorized('the bearer token is malformed', 'invalid_token');
    const token = tokens.get(match[1]);
    // Revoked is answered as unknown, as the service does: a 401 never tells whether a token exists.
    if (!token || token.revoked) throw unauthorized('the bearer token is not recognised', 'invalid_token');
    if (operation.scope !== null && !token.scopes.includes(operation.scope)) {
      throw new Refusal(403, `this token lacks the "${operation.scope}" scope that ${operation.operationId} needs`, {
        'www-authenticate': `Bearer ${REALM}, error="insufficient_scope", scope="${operation.scope}"`,
      });
    }
    return { subject: token.subject };
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
    throw new Refusal(
      429,
      `rate limit of ${max} requests exceeded; retry in ${seconds} second${seconds === 1 ? '' : 's'}`,
      {
        'retry-after': String(seconds),
      },
    );
  }

  async function readBody(request: Request): Promise<unknown> {
    const type = request.headers.get('content-type');
    const bytes = new Uint8Array(await request.arrayBuffer());
    if (!type || !/^application\/json\s*(;|$)/i.test(type)) {
      // No body at all: the service's check that a required body was sent, in its words.
      if (bytes.length === 0 && !type) throw new Refusal(400, BODY_REQUIRED_MESSAGE);
      throw new Refusal(415, 'the request body must be sent with "Content-Type: application/json"');
    }
    if (bytes.length > BODY_LIMIT_BYTES) {
      throw new Refusal(413, `the request body is larger than ${BODY_LIMIT_BYTES} bytes`);
    }
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
    } catch {
      throw new Refusal(400, 'the body is not valid UTF-8');
    }
    if (text === '') throw new Refusal(400, 'the body is empty; send a JSON object');
    try {
      return parseJsonExact(text);
    } catch (error) {
      if (error instanceof JsonBodyError) throw new Refusal(400, error.message);
      throw error;
    }
  }

  /**
   * Idempotency-Key, as the service has it: the first answer to a key (200, 409, or a 400 for the body) kept per
   * subject for 24 hours, given again to a repeat with the same fingerprint, a 422 for another.
   */
  function keyed(
    id: string,
    fingerprint: string,
    first: () => { status: number; body: string },
  ): { status: number; body: string; headers?: Record<string, string> } {
    const previous = kept.get(id);
    if (previous && now() - previous.at < IDEMPOTENCY_TTL_MS) {
      if (previous.fingerprint !== fingerprint) {
        throw new Refusal(
          422,
          'this Idempotency-Key was already used for a request with another body; send a new key for a new request',
        );
      }
      return { status: previous.status, body: previous.body, headers: { 'idempotent-replayed': 'true' } };
    }
    const answer = first();
    kept.set(id, { fingerprint, ...answer, at: now() });
    return answer;
  }

  async function answer(
    request: Request,
    url: URL,
  ): Promise<{ status: number; body?: string; headers?: Record<string, string> }> {
    const path = url.pathname;
    const route = ROUTES.find(({ pattern }) => pattern.test(path));
    if (!route) throw new Refusal(404, `no route ${request.method} ${path}; see /openapi.json for the API`);
    const operation = route.operations.get(request.method);
    if (!operation) {
      const methods = [...route.operations.keys()];
      throw new Refusal(405, `${request.method} is not allowed on ${path}; use ${methods.join(' or ')}`, {
        allow: methods.join(', '),
      });
    }
    if (!Object.hasOwn(ANSWERED, operation.operationId)) {
      throw new Refusal(501, `the testing kit does not answer ${operation.operationId}; this build of it predates it`);
    }
    const failure = failures[0];
    if (failure) {
      if ((failure.times ?? 1) <= 1) failures.shift();
      else failure.times = (failure.times ?? 1) - 1;
      throw new Refusal(
        failure.status,
        failure.message ?? DEFAULT_MESSAGES[failure.status] ?? `scripted failure ${failure.status}`,
        failure.retryAfterSeconds === undefined ? {} : { 'retry-after': String(failure.retryAfterSeconds) },
      );
    }
    const { subject } = authenticate(request, url, operation);
    rateLimit(subject);
    const owned = plantsFor(subject);
    const matched = route.pattern.exec(path) ?? [];
    const pathValues = Object.fromEntries(
      route.names.map((name, index) => [name, decodeURIComponent(matched[index + 1] ?? '')]),
    );
    // Unknown query parameters (and declared ones given twice) are refused, by the rule the service runs.
    const names = checkQueryNames(operation, url.searchParams.keys());
    if (names) throw invalid(names);
    const parameters = checkParameters(operation, pathValues, url.searchParams);
    if (isProblem(parameters)) throw invalid(parameters);
    if (operation.operationId === 'createPlant') {
      // The body is checked before the key, as the service's validation does.
      const key = request.headers.get('idempotency-key');
      const wellFormedKey = key !== null && IDEMPOTENCY_KEY.test(key);
      // A keyed create keeps a 400 about its body too, under the exact bytes sent (as the service does).
      const sent = wellFormedKey ? new TextDecoder('latin1').decode(await request.clone().arrayBuffer()) : '';
      let checked: { plant: ValidPlant };
      try {
        const valid = validateNewPlant(await readBody(request));
        if (isProblem(valid)) throw invalid(valid);
        checked = valid;
      } catch (error) {
        if (!wellFormedKey || !(error instanceof Refusal) || error.status !== 400) throw error;
        return keyed(`${subject}\u0000${key}`, `refused:${sent}`, () => ({
          status: 400,
          body: errorBody(error),
        }));
      }
      if (key !== null && !wellFormedKey) {
        throw new Refusal(400, 'header "idempotency-key" must be 1 to 255 visible ASCII characters, without spaces');
      }
      const create = () => {
        if (owned.has(checked.plant.id)) {
          throw new Refusal(
            409,
            `a plant with id ${checked.plant.id} already exists; choose another id or delete that plant first`,
          );
        }
        owned.set(checked.plant.id, checked.plant);
        touch(subject);
        return { status: 200, body: JSON.stringify(stored(checked.plant)) };
      };
      if (key === null) return create();
      const fingerprint = JSON.stringify([String(checked.plant.id), checked.plant.name, checked.plant.tag ?? null]);
      return keyed(`${subject}\u0000${key}`, fingerprint, () => {
        try {
          return create();
        } catch (error) {
          if (!(error instanceof Refusal)) throw error;
          return { status: 409, body: errorBody(error) };
        }
      });
    }
    if (operation.operationId === 'deletePlant') {
      const id = BigInt(parameters.params.id as number | bigint);
      if (!owned.delete(id)) throw new Refusal(404, `no plant with id ${id} exists for this token's owner`);
      touch(subject);
      return { status: 204 };
    }
    // getPlants, the one operation left (ANSWERED).
    const query = parameters.query as { limit: number; cursor?: string };
    const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    if (query.cursor !== undefined && after === undefined) throw new Refusal(400, CURSOR_NOT_ISSUED_MESSAGE);
    const ids = [...owned.keys()].filter((id) => after === undefined || id > after).sort((a, b) => (a < b ? -1 : 1));
    const page = ids.slice(0, query.limit);
    const last = page.at(-1);
    const headers: Record<string, string> =
      ids.length > query.limit && last !== undefined ? { link: nextPageLink(path, query.limit, last) } : {};
    // A weak ETag from the subject's version and the query; If-None-Match naming it (or *) is a 304 without a body.
    headers.etag = `W/"${versions.get(subject) ?? 0}-${hash(`${subject}|${query.limit}|${after ?? ''}`)}"`;
    const opaque = headers.etag.slice(2);
    const match = request.headers
      .get('if-none-match')
      ?.split(',')
      .some((tag) => ['*', opaque].includes(tag.trim().replace(/^W\//, '')));
    if (match) return { status: 304, headers };
    return { status: 200, body: JSON.stringify(page.map((id) => stored(owned.get(id) as ValidPlant))), headers };
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
    let result: { status: number; body?: string; headers?: Record<string, string> };
    try {
      result = await answer(request, url);
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      result = { status: error.status, body: errorBody(error), headers: error.headers };
    }
    requests.push({ method: request.method, url: request.url, status: result.status });
    if (result.body !== undefined) headers['content-type'] = 'application/json; charset=utf-8';
    return new Response(result.body ?? null, { status: result.status, headers: { ...headers, ...result.headers } });
  }

  return {
    fetch,
    requests,
    createToken({ subject, scopes = ['read', 'write'] }) {
      const token = `fake_${randomText(16)}`;
      tokens.set(token, { subject, scopes: [...scopes], revoked: false });
      return token;
    },
    revokeToken(token) {
      const known = tokens.get(token);
      if (known) known.revoked = true;
    },
    seed(subject, seeded) {
      const owned = plantsFor(subject);
      for (const plant of seeded) {
        const checked = validateNewPlant(plant);
        if (isProblem(checked)) throw new TypeError(`seed: ${checked.message}`);
        owned.set(checked.plant.id, checked.plant);
      }
      touch(subject);
    },
    plantsOf(subject) {
      return [...plantsFor(subject).values()].sort((a, b) => (a.id < b.id ? -1 : 1)).map((plant) => ({ ...plant }));
    },
    failNext(failure) {
      failures.push({ ...failure });
    },
    reset() {
      tokens.clear();
      plants.clear();
      failures.length = 0;
      windows.clear();
      requests.length = 0;
      versions.clear();
      kept.clear();
    },
  };
}
