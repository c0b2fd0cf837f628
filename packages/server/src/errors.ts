// The service's error type: a status, a message a client developer can act on, and optional headers.
// Handlers, hooks and the store throw these; http/error-handler.ts turns them into HTTP answers.

export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

/** Thrown by a store when its database cannot be reached; answered with 503 so clients retry. */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
}
