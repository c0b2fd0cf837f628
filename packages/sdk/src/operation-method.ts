// The method of one operation, built from its generated SDK row: path parameters, body and query taken from the
// arguments in the row's order, a fresh Idempotency-Key where the operation declares one, and an error thrown for
// anything but a 2xx. Paged lists have their own methods (paged-list.ts).
import type { SdkOperationFacts } from '@plant-store/contract';
import { errorFromResponse } from './errors.js';
import { newIdempotencyKey } from './idempotency-key.js';
import type { CallOptions } from './transport.js';

/** openapi-fetch's `request`, loosely typed: the rows name methods and paths that resource-types.ts types exactly. */
export type LooseRequest = (
  method: string,
  path: string,
  init: Record<string, unknown>,
) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

/** The options openapi-fetch takes per call: a transport of the call's own, its signal, its headers. */
export interface PerCallInit {
  fetch?: (input: Request) => Promise<Response>;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

/** What every generated method sends its request through. */
export interface RequestContext {
  raw: { request: LooseRequest };
  perCall(call: CallOptions | undefined): PerCallInit;
  baseUrl: string;
  /** Pages a paged list keeps with their ETags (0 keeps none). */
  pageCacheSize: number;
}

export function operationMethod(
  row: SdkOperationFacts,
  { raw, perCall }: RequestContext,
): (...args: unknown[]) => Promise<unknown> {
  const method = row.method.toLowerCase();
  return async (...args) => {
    const path = Object.fromEntries(row.pathParams.map((name, index) => [name, args[index]]));
    let next = row.pathParams.length;
    const body = row.body ? args[next++] : undefined;
    const query = row.query ? args[next++] : undefined;
    const call = args[next] as CallOptions | undefined;
    const options = perCall(call);
    if (row.idempotencyKey) {
      const key = call?.idempotencyKey === undefined ? newIdempotencyKey() : call.idempotencyKey;
      if (key !== null) options.headers = { ...options.headers, 'idempotency-key': key };
    }
    const { data, error, response } = await raw.request(method, row.path, {
      params: { path, query },
      body,
      ...options,
    });
    // openapi-fetch answers a 204 without reading a body.
    if (!response.ok) throw errorFromResponse(response, error);
    return data;
  };
}
