// W3C Trace Context for calls to the service: a middleware that sends the `traceparent` (and `tracestate`) your
// tracing library gives it, so the service's spans join your trace. The SDK depends on no tracing library: you
// pass a function that reads the current context, e.g. with OpenTelemetry `propagation.inject(context.active(), c)`.
import type { Middleware } from 'openapi-fetch';

/** The trace context headers of the current span, as a propagator writes them into a carrier. */
export interface TraceContextHeaders {
  traceparent?: string | undefined;
  tracestate?: string | undefined;
}

// version 00: 00-<trace id: 32 hex>-<parent id: 16 hex>-<flags: 2 hex>; all-zero ids are invalid.
const TRACEPARENT = /^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;

/**
 * A middleware that sets `traceparent` (and `tracestate`) on every request from `current()`, asked per request.
 * An invalid or missing traceparent sends neither header (the service then starts a trace of its own); a
 * traceparent the call already carries (`headers` in its options) is kept.
 */
export function traceContextMiddleware(current: () => TraceContextHeaders | undefined): Middleware {
  return {
    onRequest({ request }) {
      if (request.headers.has('traceparent')) return undefined;
      const headers = current();
      const traceparent = headers?.traceparent?.trim().toLowerCase();
      if (!traceparent || !TRACEPARENT.test(traceparent)) return undefined;
      request.headers.set('traceparent', traceparent);
      const tracestate = headers?.tracestate?.trim();
      if (tracestate) request.headers.set('tracestate', tracestate);
      return request;
    },
  };
}
