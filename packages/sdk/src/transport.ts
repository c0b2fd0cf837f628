// The fetch every request goes through: adds the bearer token, applies the timeout, and retries what is safe to
// retry with exponential backoff and full jitter, honouring Retry-After. 429 and 503 answers are retried for any
// request; a request that carries an Idempotency-Key (every create, unless told otherwise) is also retried on other 5xx,
// on a 409 with Retry-After (the same key still in flight), on network failures and on timeouts, always with the same
// key, so the service answers it once. Never 401, 403 or another 4xx; a 401 may be replayed once with a refreshed
// token when the client asks for it.
import {
  errorFromResponse,
  PlantStoreAbortError,
  PlantStoreConnectionError,
  type PlantStoreError,
  PlantStoreTimeoutError,
  parseRetryAfter,
} from './errors.js';

/** What a token function is told: `refresh` is true when the last token was answered with 401 (see `refreshOn401`). */
export interface TokenContext {
  /** True when the service refused the previous token with 401: return a fresh one, not a cached one. */
  refresh: boolean;
}

/** The bearer token, or a function returning it (or a promise of it), asked before every attempt. */
export type TokenSource = string | ((context: TokenContext) => string | Promise<string>);

export interface RetryOptions {
  /** Retries after the first attempt (default 2; 0 turns retrying off). */
  maxRetries?: number;
  /** First backoff step in ms (default 250); each retry doubles it, with full jitter. */
  baseDelayMs?: number;
  /** Longest wait between attempts in ms (default 8000). A longer Retry-After is not waited for. */
  maxDelayMs?: number;
  /**
   * Retry a create sent without an Idempotency-Key (`idempotencyKey: null`) after a network failure or timeout
   * (default false: it may have been stored). Creates with a key, the default, are retried whatever this says.
   */
  retryCreateOnNetworkError?: boolean;
}

/** Why the SDK is about to send a request again: told to `onRetry` before the wait. */
export interface RetryInfo {
  /** The attempt about to be made: 2 for the first retry. */
  attempt: number;
  /** How long the SDK waits before it, in ms (from Retry-After or the jittered backoff; 0 for a token refresh). */
  delayMs: number;
  /**
   * What went wrong with the previous attempt: a `RateLimitError` or `InternalServerError` (429, 503), a
   * `PlantStoreConnectionError`, a `PlantStoreTimeoutError`, or an `AuthenticationError` replayed by `refreshOn401`.
   */
  reason: PlantStoreError | PlantStoreConnectionError | PlantStoreTimeoutError;
  /** The request's method, e.g. `GET`. */
  method: string;
  /** The request's URL. */
  url: string;
}

export interface TransportOptions {
  token: TokenSource;
  fetch: (request: Request) => Promise<Response>;
  timeoutMs: number;
  retry: Required<RetryOptions>;
  /** Told before every retry (and before a 401 replay). */
  onRetry: ((info: RetryInfo) => void) | undefined;
  /** Replay a 401 once with a token asked for again (`{ refresh: true }`); only when `token` is a function. */
  refreshOn401: boolean;
  /** Waits between retries; injectable so tests need not sleep. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  random: () => number;
}

/** Options of one call; the last argument of every method. */
export interface CallOptions {
  /** Cancels the call: it rejects with PlantStoreAbortError, and is not retried. */
  signal?: AbortSignal;
  /** Overrides the client's timeout for this call, per attempt. */
  timeoutMs?: number;
  /** Overrides the client's `retry.maxRetries` for this call (0: no retry). */
  maxRetries?: number;
  /** Headers for this call only, on top of the client's (the bearer token cannot be overridden). */
  headers?: Record<string, string>;
  /**
   * Operations that declare an Idempotency-Key only (`plants.create`): the key to send, the same on every retry of
   * this call. A fresh random key is made for each call unless one is given; give your own to make a create safe
   * across calls too (say, across a page reload), or `null` to send none (the create is then not retried after a
   * network failure or timeout).
   */
  idempotencyKey?: string | null;
}

// 429 and 503 mean the service did nothing; any method may try again.
const RETRY_ANY_METHOD = new Set([429, 503]);
const IDEMPOTENT = new Set(['GET', 'HEAD', 'DELETE', 'PUT', 'OPTIONS']);

export function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    // Removed once the wait is over, so a long-lived signal does not collect a listener per retry.
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

async function resolveToken(token: TokenSource, refresh: boolean): Promise<string> {
  return typeof token === 'function' ? await token({ refresh }) : token;
}

interface Prepared {
  url: string;
  init: RequestInit;
}

// Requests whose attempt has not settled (see attempt()).
const inFlight = new Set<Request>();

/** The caller's abort as the SDK's own error, with the signal's reason as its cause. */
function aborted(signal: AbortSignal): PlantStoreAbortError {
  const reason: unknown = signal.reason;
  const message = reason instanceof Error && reason.message ? reason.message : 'the call was aborted by its caller';
  return new PlantStoreAbortError(message, { cause: reason });
}

/**
 * Why a fetch failed, from its innermost cause: Node's fetch says "fetch failed" and keeps "connect ECONNREFUSED
 * 127.0.0.1:3999" (the code and the address) two levels down, and "localhost" tried on ::1 and 127.0.0.1 an
 * AggregateError of both.
 */
function failureReason(error: unknown): string {
  let reason = String((error as Error)?.message ?? error);
  for (let cause = (error as Error)?.cause, depth = 0; cause && depth < 4; cause = (cause as Error).cause, depth++) {
    const { message, code, errors } = cause as Error & { code?: string; errors?: Error[] };
    const said = errors?.length ? errors.map((each) => each.message).join('; ') : message;
    if (said) reason = code && !said.includes(code) ? `${said} (${code})` : said;
  }
  return reason;
}

/**
 * The origin of this page when `url` is on another one, in a browser; undefined elsewhere. A browser hides why a
 * cross-origin fetch failed: a missing CORS grant is the likeliest cause, and retrying it cannot help.
 */
function crossOriginPage(url: string): string | undefined {
  const page = (globalThis as { document?: unknown; location?: { origin?: string } }).location?.origin;
  if (!(globalThis as { document?: unknown }).document || !page || page === 'null') return undefined;
  return new URL(url).origin === page ? undefined : page;
}

/** A connection error that says what a browser would not: that CORS is the likely cause. */
class CorsSuspectedError extends PlantStoreConnectionError {}

/** One attempt, body included, bounded by the timeout; network failures and timeouts become the SDK's own errors. */
async function attempt(options: TransportOptions, request: Prepared, call: CallOptions): Promise<Response> {
  // Listening for 'abort' below misses a signal that has already fired.
  if (call.signal?.aborted) throw aborted(call.signal);
  const timeoutMs = call.timeoutMs ?? options.timeoutMs;
  // Errors without an answer carry the id the request was sent with, to find it in the service's log.
  const requestId = new Headers(request.init.headers).get('x-request-id') ?? undefined;
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new PlantStoreTimeoutError(`no answer within ${timeoutMs} ms`, { requestId }));
  }, timeoutMs);
  const onAbort = () => controller.abort(call.signal?.reason);
  call.signal?.addEventListener('abort', onAbort, { once: true });
  // The deadline and the caller's abort must win even when the fetch never hears of them: in undici the link from
  // a Request's signal to its fetch is weakly held and is lost on garbage collection (nodejs/undici#4068), so the
  // fetch is raced against our own controller, and the Request is kept reachable until the attempt settles.
  const outgoing = new Request(request.url, { ...request.init, signal: controller.signal });
  const abandoned = new Promise<never>((_resolve, reject) => {
    controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
  });
  inFlight.add(outgoing);
  try {
    const response = await Promise.race([options.fetch(outgoing), abandoned]);
    // The body is read here, under the deadline and the caller's signal, so a server that sends its headers and then
    // stalls cannot hold the call past either; the answer is handed on whole.
    const bytes = await Promise.race([response.arrayBuffer(), abandoned]);
    const whole = new Response(bytes.byteLength ? bytes : null, response);
    // The Link of a page resolves against the URL it was answered for.
    Object.defineProperty(whole, 'url', { value: response.url });
    return whole;
  } catch (error) {
    if (timedOut) throw new PlantStoreTimeoutError(`no answer within ${timeoutMs} ms`, { cause: error, requestId });
    if (call.signal?.aborted) throw aborted(call.signal);
    const reason = failureReason(error);
    const page = crossOriginPage(request.url);
    if (page !== undefined) {
      throw new CorsSuspectedError(
        `could not reach the Plant Store service at ${new URL(request.url).origin} (${reason}). In a browser the ` +
          `likeliest cause is CORS: the service must allow this page's origin ${page} (its CORS_ORIGINS setting); ` +
          'otherwise the service is down or the network is offline',
        { cause: error, requestId },
      );
    }
    throw new PlantStoreConnectionError(`could not reach the Plant Store service: ${reason}`, {
      cause: error,
      requestId,
    });
  } finally {
    inFlight.delete(outgoing);
    clearTimeout(timer);
    call.signal?.removeEventListener('abort', onAbort);
  }
}

/** A fetch for openapi-fetch that authenticates, times out and retries as configured. */
export function createTransport(options: TransportOptions, call: CallOptions = {}) {
  return async (input: Request): Promise<Response> => {
    // The body is read once so that every attempt can send it again.
    const body = input.body === null ? undefined : await input.arrayBuffer();
    let refresh = false;
    const prepare = async (): Promise<Prepared> => {
      // Asked again for every attempt: a retry after a long Retry-After may need a refreshed token.
      const headers = new Headers(input.headers);
      headers.set('authorization', `Bearer ${await resolveToken(options.token, refresh)}`);
      return { url: input.url, init: { method: input.method, headers, body } };
    };
    const { baseDelayMs, maxDelayMs, retryCreateOnNetworkError } = options.retry;
    const maxRetries = call.maxRetries ?? options.retry.maxRetries;
    // With an Idempotency-Key the service answers a repeat with the first answer: retrying cannot create twice.
    const keyed = input.headers.has('idempotency-key');
    const networkRetryable = IDEMPOTENT.has(input.method) || keyed || retryCreateOnNetworkError;
    let replayed401 = false;
    let attempts = 1;
    const wait = async (delayMs: number, reason: RetryInfo['reason']) => {
      attempts++;
      try {
        options.onRetry?.({ attempt: attempts, delayMs, reason, method: input.method, url: input.url });
      } catch {
        // A failing logger must not turn a retry the SDK would survive into a failed call.
      }
      try {
        await options.sleep(delayMs, call.signal);
      } catch (error) {
        if (call.signal?.aborted) throw aborted(call.signal);
        throw error;
      }
    };
    for (let retry = 0; ; ) {
      const backoff = () => Math.min(maxDelayMs, baseDelayMs * 2 ** retry) * options.random();
      let response: Response;
      try {
        response = await attempt(options, await prepare(), call);
      } catch (error) {
        const transient =
          (error instanceof PlantStoreConnectionError && !(error instanceof CorsSuspectedError)) ||
          error instanceof PlantStoreTimeoutError;
        if (!transient || !networkRetryable || retry >= maxRetries) throw error;
        await wait(backoff(), error);
        retry++;
        continue;
      }
      if (response.status === 401 && options.refreshOn401 && typeof options.token === 'function' && !replayed401) {
        // One replay with a token asked for again; it does not count against maxRetries.
        replayed401 = true;
        refresh = true;
        await wait(0, await errorOf(response));
        continue;
      }
      refresh = false;
      if (!retryable(response, keyed) || retry >= maxRetries) return response;
      const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
      if (retryAfter !== undefined && retryAfter > maxDelayMs) return response;
      await wait(retryAfter ?? backoff(), await errorOf(response));
      retry++;
    }
  };
}

/** Whether an answer may be retried: 429 and 503 always; with an Idempotency-Key, any 5xx and an in-flight 409. */
function retryable(response: Response, keyed: boolean): boolean {
  if (RETRY_ANY_METHOD.has(response.status)) return true;
  if (!keyed) return false;
  return response.status >= 500 || (response.status === 409 && response.headers.has('retry-after'));
}

/** The error a refused answer would throw, for onRetry; reads (and so releases) the answer's body. */
async function errorOf(response: Response): Promise<PlantStoreError> {
  const text = await response.text().catch(() => '');
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: the text is the message.
  }
  return errorFromResponse(response, body);
}
