// One delivery attempt: a POST with a deadline covering DNS, connect, send and the answer; redirects are not
// followed; at most RESPONSE_CAP bytes of the answer are read (and discarded); https only and public addresses only
// unless private delivery is allowed.
import https from 'node:https';
import { isIP } from 'node:net';
import { http } from '../http/node-http.js';
import { isPublicAddress, publicOnlyLookup, RefusedAddressError } from './address-guard.js';

/** The most bytes of a receiver's answer read before the connection is dropped. */
export const RESPONSE_CAP = 64 * 1024;

export type AttemptResult =
  | { kind: 'answered'; status: number; retryAfter: string | undefined }
  | { kind: 'error'; error: string; retryable: boolean };

export interface SendOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  /** Aborts the attempt (service shutdown). */
  signal: AbortSignal;
}

/** Refuses a URL the delivery rules forbid before any connection; undefined when it may be tried. */
export function refusedTarget(url: URL, allowPrivate: boolean): string | undefined {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `${url.protocol} URLs cannot receive webhooks`;
  if (allowPrivate) return undefined;
  if (url.protocol !== 'https:') return 'only https URLs receive webhooks (WEBHOOK_ALLOW_PRIVATE=true allows http)';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0 && !isPublicAddress(host)) return `${host} is not a public address`;
  return undefined;
}

export function sendWebhook(
  url: URL,
  body: string,
  headers: Record<string, string>,
  options: SendOptions,
): Promise<AttemptResult> {
  const refusal = refusedTarget(url, options.allowPrivate);
  if (refusal) return Promise.resolve({ kind: 'error', error: refusal, retryable: false });
  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    const finish = (result: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      options.signal.removeEventListener('abort', abort);
      resolve(result);
    };
    const client = url.protocol === 'https:' ? https : http;
    const request = client.request(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      ...(options.allowPrivate ? {} : { lookup: publicOnlyLookup }),
    });
    const deadline = setTimeout(() => {
      finish({ kind: 'error', error: `no answer within ${options.timeoutMs} ms`, retryable: true });
      request.destroy();
    }, options.timeoutMs);
    const abort = () => {
      finish({ kind: 'error', error: 'abandoned at shutdown', retryable: true });
      request.destroy();
    };
    if (options.signal.aborted) return abort();
    options.signal.addEventListener('abort', abort, { once: true });
    request.on('error', (error) => {
      const refused = error instanceof RefusedAddressError;
      finish({ kind: 'error', error: error.message || String(error), retryable: !refused });
    });
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      const retryAfter = response.headers['retry-after'];
      let read = 0;
      response.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > RESPONSE_CAP) {
          finish({ kind: 'answered', status, retryAfter });
          response.destroy();
        }
      });
      response.on('end', () => finish({ kind: 'answered', status, retryAfter }));
      response.on('close', () => finish({ kind: 'answered', status, retryAfter }));
    });
    request.end(body);
  });
}
