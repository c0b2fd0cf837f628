// The service's error type: a status, a message a client developer can act on, and optional headers. Handlers,
// request rules and hooks throw these; the server's one error handler (and the testing kit) turn them into the
// contract's Error answer. No Node or DOM APIs, so every side may run it.
import type { ErrorDetail } from './request-rules.js';

export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
    /** The broken rules of a 400, sent as the Error's `details`. */
    readonly details?: readonly ErrorDetail[],
  ) {
    super(message);
  }
}
