// Errors the SDK throws, all under one root (PlantStoreSdkError): one class per documented status (PlantStoreError
// and its subclasses), plus no answer (connection), no answer in time (timeout), the caller's abort and a paging walk
// sent round in a cycle.
import type { ErrorBody } from '@plant-store/contract';

/**
 * The root of everything the SDK throws for a call that did not succeed: an answer outside 2xx
 * ({@link PlantStoreError}), no answer ({@link PlantStoreConnectionError}), no answer in time
 * ({@link PlantStoreTimeoutError}), the caller's abort ({@link PlantStoreAbortError}) or a cycle of cursors
 * ({@link PlantStoreCursorCycleError}). One `instanceof` check tells
 * an SDK failure from a bug in your own code. (An id that cannot be sent exactly rejects the call with a `TypeError`
 * before any request: a programming error, not a failure of the call.)
 */
export class PlantStoreSdkError extends Error {
  override name = 'PlantStoreSdkError';
}

/** What every {@link PlantStoreError} is built from; exported so tests and wrappers can build one. */
export interface PlantStoreErrorInit {
  /** The HTTP status of the answer. */
  status: number;
  /** The server's numeric `error` field (the HTTP status); undefined when the body was not the Error shape. */
  code: number | undefined;
  /** What was wrong, in words a developer can act on: the server's `message`, or the body's text, or the status. */
  message: string;
  /** The answer's `x-request-id`; quote it when reporting a problem. */
  requestId: string | undefined;
  /** The answer itself (its body already read). */
  response: Response;
  /** The parsed error body when it had the contract's Error shape; undefined otherwise (say a proxy's HTML page). */
  body?: ErrorBody | undefined;
}

/** Any answer of the service outside 2xx. `instanceof` a subclass to tell the statuses apart. */
export class PlantStoreError extends PlantStoreSdkError {
  override name = 'PlantStoreError';
  /** The HTTP status of the answer, e.g. 404. */
  readonly status: number;
  /** The server's numeric `error` field (equal to the status); undefined when the body was not the Error shape. */
  readonly code: number | undefined;
  /** The answer's `x-request-id`; quote it when reporting a problem. */
  readonly requestId: string | undefined;
  /** The answer itself, for its headers (its body has been read into `body`). */
  readonly response: Response;
  /** The parsed error body (`{ error, message }`) when it had the contract's Error shape; undefined otherwise. */
  readonly body: ErrorBody | undefined;

  constructor(init: PlantStoreErrorInit) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.response = init.response;
    this.body = init.body;
  }
}

/** 400: the request broke a rule of the contract; `message` names the field or parameter. */
export class BadRequestError extends PlantStoreError {
  override name = 'BadRequestError';
}
/** 401: the token is missing, unknown, revoked or expired. */
export class AuthenticationError extends PlantStoreError {
  override name = 'AuthenticationError';
}
/** 403: the token lacks the scope the operation needs. */
export class PermissionDeniedError extends PlantStoreError {
  override name = 'PermissionDeniedError';
}
/** 404: no such plant for this token's owner (or no such route). */
export class NotFoundError extends PlantStoreError {
  override name = 'NotFoundError';
}
/** 409: this owner already has a plant with that id. */
export class ConflictError extends PlantStoreError {
  override name = 'ConflictError';
}
/** 413: the request body is too large. */
export class PayloadTooLargeError extends PlantStoreError {
  override name = 'PayloadTooLargeError';
}
/** 415: the request body was not JSON. */
export class UnsupportedMediaTypeError extends PlantStoreError {
  override name = 'UnsupportedMediaTypeError';
}
/** 429: rate limited; `retryAfterMs` says when to try again. */
export class RateLimitError extends PlantStoreError {
  override name = 'RateLimitError';
  /** From the Retry-After header; undefined when the server sent none. */
  readonly retryAfterMs: number | undefined;
  constructor(init: PlantStoreErrorInit & { retryAfterMs: number | undefined }) {
    super(init);
    this.retryAfterMs = init.retryAfterMs;
  }
}
/** 5xx: the service failed or is unavailable; quote `requestId` when reporting it. */
export class InternalServerError extends PlantStoreError {
  override name = 'InternalServerError';
}

/** What the errors of a call without an answer are built from: the cause, and the request id it was sent with. */
export interface NoAnswerOptions extends ErrorOptions {
  requestId?: string | undefined;
}

/**
 * The request never got an answer: DNS, refused or reset connection, offline, or (in a browser) a CORS refusal, which
 * the browser does not let the page tell apart. `cause` holds the reason.
 */
export class PlantStoreConnectionError extends PlantStoreSdkError {
  override name = 'PlantStoreConnectionError';
  /** The `x-request-id` the request was sent with (yours or a middleware's); undefined when it had none. */
  readonly requestId: string | undefined;
  constructor(message: string, options: NoAnswerOptions = {}) {
    super(message, options);
    this.requestId = options.requestId;
  }
}

/** No answer within the timeout (`timeoutMs`, per attempt). */
export class PlantStoreTimeoutError extends PlantStoreSdkError {
  override name = 'PlantStoreTimeoutError';
  /** The `x-request-id` the request was sent with: the service's log may still show how it ended. */
  readonly requestId: string | undefined;
  constructor(message: string, options: NoAnswerOptions = {}) {
    super(message, options);
    this.requestId = options.requestId;
  }
}

/** The caller aborted the call through its `signal`; `cause` is the signal's reason. Never retried. */
export class PlantStoreAbortError extends PlantStoreSdkError {
  override name = 'PlantStoreAbortError';
}

/**
 * A paging walk (`listAll`) was sent to a cursor it had already followed (A -> B -> A): following it would never end,
 * so the walk ends here, after yielding every item of the pages before. `cursor` is the repeated one.
 */
export class PlantStoreCursorCycleError extends PlantStoreSdkError {
  override name = 'PlantStoreCursorCycleError';
  /** The cursor the service's `Link` named a second time in this walk. */
  readonly cursor: string;
  constructor(cursor: string) {
    super(`paging cycle: cursor ${cursor} came again`);
    this.cursor = cursor;
  }
}

const BY_STATUS: Record<number, typeof PlantStoreError> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  413: PayloadTooLargeError,
  415: UnsupportedMediaTypeError,
};

/** Milliseconds from a Retry-After header (delta-seconds or an HTTP date); undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * The message of an answer without the contract's Error body (a proxy's 502 page, say): the status and a short excerpt
 * of its text, markup stripped, never the whole page.
 */
function statusWithExcerpt(response: Response, body: unknown): string {
  const status = `HTTP ${response.status} ${response.statusText}`.trim();
  if (typeof body !== 'string') return status;
  const text = body
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (!text) return status;
  return `${status}: ${text.length > 120 ? `${text.slice(0, 119)}…` : text}`;
}

/** The PlantStoreError for a non-2xx response whose body (already read) is `body`. */
export function errorFromResponse(response: Response, body: unknown): PlantStoreError {
  const shaped =
    typeof body === 'object' && body !== null && typeof (body as { message?: unknown }).message === 'string'
      ? (body as ErrorBody)
      : undefined;
  const init: PlantStoreErrorInit = {
    status: response.status,
    code: typeof shaped?.error === 'number' ? shaped.error : undefined,
    message: shaped?.message ?? statusWithExcerpt(response, body),
    requestId: response.headers.get('x-request-id') ?? undefined,
    response,
    body: shaped,
  };
  if (response.status === 429) {
    return new RateLimitError({ ...init, retryAfterMs: parseRetryAfter(response.headers.get('retry-after')) });
  }
  if (response.status >= 500) return new InternalServerError(init);
  const ErrorClass = BY_STATUS[response.status] ?? PlantStoreError;
  return new ErrorClass(init);
}
