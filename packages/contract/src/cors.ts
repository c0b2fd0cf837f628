// What a browser on another origin may send and read: the request headers a CORS preflight grants and the answer
// headers exposed to the page. The server's CORS answers and the SDK's mock server both send these. No Node or DOM APIs.

/**
 * Request headers a cross-origin page may send: the token and body type, a request id, W3C trace context (the SDK's
 * traceContextMiddleware), and the SDK's safe retries and conditional lists (Idempotency-Key, If-None-Match).
 */
export const CORS_ALLOWED_HEADERS = Object.freeze([
  'Authorization',
  'Content-Type',
  'X-Request-Id',
  'traceparent',
  'tracestate',
  'Idempotency-Key',
  'If-None-Match',
] as const);

/** Answer headers a cross-origin page may read: paging, retries, request ids, the 401's reason, ETags, replays. */
export const CORS_EXPOSED_HEADERS = Object.freeze([
  'Link',
  'Retry-After',
  'X-Request-Id',
  'WWW-Authenticate',
  'ETag',
  'Idempotent-Replayed',
] as const);

/** How long a browser may keep a preflight's answer, in seconds. */
export const CORS_MAX_AGE_SECONDS = 600;
