// Errors the SDK throws: one class per documented status (all PlantStoreError), plus network and timeout failures.
// Each carries what a developer needs to act: the status, the server's `error` and `message`, the request id.

export interface PlantStoreErrorInit {
  status: number;
  /** The server's numeric `error` field (the HTTP status); undefined when the body was not the Error shape. */
  code: number | undefined;
  message: string;
  requestId: string | undefined;
  response: Response;
}

/** Any answer of the service outside 2xx. `instanceof` a subclass to tell the statuses apart. */
export class PlantStoreError extends Error {
  override name = 'PlantStoreError';
  readonly status: number;
  readonly code: number | undefined;
  readonly requestId: string | undefined;
  readonly response: Response;

  constructor(init: PlantStoreErrorInit) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.response = init.response;
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

/** The request never got an answer: DNS, refused or reset connection, CORS, offline. `cause` holds the reason. */
export class PlantStoreConnectionError extends Error {
  override name = 'PlantStoreConnectionError';
}

/** No answer within the timeout. */
export class PlantStoreTimeoutError extends Error {
  override name = 'PlantStoreTimeoutError';
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

/** The PlantStoreError for a non-2xx response whose body (already read) is `body`. */
export function errorFromResponse(response: Response, body: unknown): PlantStoreError {
  const shaped =
    typeof body === 'object' && body !== null && typeof (body as { message?: unknown }).message === 'string'
      ? (body as { error?: unknown; message: string })
      : undefined;
  const init: PlantStoreErrorInit = {
    status: response.status,
    code: typeof shaped?.error === 'number' ? shaped.error : undefined,
    message:
      shaped?.message ??
      (typeof body === 'string' && body.length > 0 && body.length < 500
        ? body
        : `HTTP ${response.status} ${response.statusText}`.trim()),
    requestId: response.headers.get('x-request-id') ?? undefined,
    response,
  };
  if (response.status === 429) {
    return new RateLimitError({ ...init, retryAfterMs: parseRetryAfter(response.headers.get('retry-after')) });
  }
  if (response.status >= 500) return new InternalServerError(init);
  const ErrorClass = BY_STATUS[response.status] ?? PlantStoreError;
  return new ErrorClass(init);
}
