// The fetch every request goes through: adds the bearer token, applies the timeout, and retries what is safe to
// retry with exponential backoff and full jitter, honouring Retry-After.
import { PlantStoreConnectionError, PlantStoreTimeoutError, parseRetryAfter } from './errors.js';

export type TokenSource = string | (() => string | Promise<string>);

export interface RetryOptions {
  /** Retries after the first attempt (default 2; 0 turns retrying off). */
  maxRetries?: number;
  /** First backoff step in ms (default 250); each retry doubles it, with full jitter. */
  baseDelayMs?: number;
  /** Longest wait between attempts in ms (default 8000). A longer Retry-After is not waited for. */
  maxDelayMs?: number;
  /** Retry a create after a network failure or timeout (default false: it may have been stored). */
  retryCreateOnNetworkError?: boolean;
}

export interface TransportOptions {
  token: TokenSource;
  fetch: (request: Request) => Promise<Response>;
  timeoutMs: number;
  retry: Required<RetryOptions>;
  /** Waits between retries; injectable so tests need not sleep. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  random: () => number;
}

export interface CallOptions {
  /** Cancels the call (no retry after an abort). */
  signal?: AbortSignal;
  /** Overrides the client's timeout for this call, per attempt. */
  timeoutMs?: number;
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

async function resolveToken(token: TokenSource): Promise<string> {
  return typeof token === 'function' ? await token() : token;
}

interface Prepared {
  url: string;
  init: RequestInit;
}

// Requests whose attempt has not settled (see attempt()).
const inFlight = new Set<Request>();

/** One attempt, bounded by the timeout; network failures and timeouts become the SDK's own errors. */
async function attempt(options: TransportOptions, request: Prepared, call: CallOptions): Promise<Response> {
  // Listening for 'abort' below misses a signal that has already fired.
  call.signal?.throwIfAborted();
  const timeoutMs = call.timeoutMs ?? options.timeoutMs;
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new PlantStoreTimeoutError(`no answer within ${timeoutMs} ms`));
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
    return await Promise.race([options.fetch(outgoing), abandoned]);
  } catch (error) {
    if (timedOut) throw new PlantStoreTimeoutError(`no answer within ${timeoutMs} ms`, { cause: error });
    if (call.signal?.aborted) throw error;
    throw new PlantStoreConnectionError(`could not reach the Plant Store service: ${(error as Error).message}`, {
      cause: error,
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
    const prepare = async (): Promise<Prepared> => {
      // Asked again for every attempt: a retry after a long Retry-After may need a refreshed token.
      const headers = new Headers(input.headers);
      headers.set('authorization', `Bearer ${await resolveToken(options.token)}`);
      return { url: input.url, init: { method: input.method, headers, body } };
    };
    const { maxRetries, baseDelayMs, maxDelayMs, retryCreateOnNetworkError } = options.retry;
    const networkRetryable = IDEMPOTENT.has(input.method) || retryCreateOnNetworkError;
    for (let retry = 0; ; retry++) {
      const backoff = () => Math.min(maxDelayMs, baseDelayMs * 2 ** retry) * options.random();
      let response: Response;
      try {
        response = await attempt(options, await prepare(), call);
      } catch (error) {
        const transient = error instanceof PlantStoreConnectionError || error instanceof PlantStoreTimeoutError;
        if (!transient || !networkRetryable || retry >= maxRetries) throw error;
        await options.sleep(backoff(), call.signal);
        continue;
      }
      if (!RETRY_ANY_METHOD.has(response.status) || retry >= maxRetries) return response;
      const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
      if (retryAfter !== undefined && retryAfter > maxDelayMs) return response;
      await response.body?.cancel();
      await options.sleep(retryAfter ?? backoff(), call.signal);
    }
  };
}
