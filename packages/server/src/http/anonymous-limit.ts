// A per-address budget for requests that end without a principal: missing or bad tokens, unknown routes, refused
// methods. Kept in this process (fixed windows, bounded memory): a flood from one address ends in 429 whatever it
// sends, while authenticated callers are limited per principal (rate-limit.ts). The contract and its docs page
// (/openapi.json, /openapi.yaml, /docs and its assets) have a budget of their own of the same size, so a client that
// spent its anonymous budget can still read the contract, and a flood of them still ends in 429.
// /healthz and /readyz are exempt: probes come from the load balancer's address.
import type { FastifyInstance } from 'fastify';
import { errorBodyText } from './error-handler.js';
import { createFixedWindows } from './rate-limit-store.js';

interface AnonymousLimiter {
  /** Counts one request from `address`; returns the seconds to wait when it is over the budget, else 0. */
  hit(address: string, now?: number): number;
  /** True when `address` is already over its budget in the current window (counts nothing). */
  exceeded(address: string, now?: number): boolean;
}

function createAnonymousLimiter(max: number, windowMs: number): AnonymousLimiter {
  const windows = createFixedWindows();
  return {
    hit(address, now = Date.now()) {
      const { count, resetAt } = windows.hit(address, windowMs, now);
      return count > max ? Math.max(1, Math.ceil((resetAt - now) / 1000)) : 0;
    },
    exceeded(address, now = Date.now()) {
      return (windows.peek(address, now)?.count ?? 0) >= max;
    },
  };
}

const exempt = (url: string) => url === '/healthz' || url === '/readyz';

/** The contract and its docs page, with or without a query string. */
const documents = (url: string) => /^\/(?:openapi\.(?:json|yaml)|docs)(?:[/?]|$)/.test(url);

/**
 * Counts every answer given without a principal against its client address (onSend, so unknown routes and early
 * refusals count too), and refuses an address already over its budget before anything else is done (onRequest).
 * A 5xx answer is the service's failure, not the caller's: never counted, never turned into a 429. During a store
 * outage a token cannot be checked, so every request with one ends without a principal, in 503: counted, the callers
 * of one address (a proxy, a NAT) would hear 429 after RATE_LIMIT_ANONYMOUS_MAX of them instead of the outage.
 */
export function registerAnonymousLimit(app: FastifyInstance, options: { max: number; windowMs: number }): void {
  const { max } = options;
  const api = createAnonymousLimiter(max, options.windowMs);
  const contract = createAnonymousLimiter(max, options.windowMs);
  const budgetOf = (url: string) => (documents(url) ? contract : api);
  const refusal = (url: string, wait: number) =>
    errorBodyText(
      429,
      documents(url)
        ? `rate limit of ${max} requests for the contract and its docs exceeded; retry in ${wait} seconds`
        : `rate limit of ${max} requests without a valid token exceeded; retry in ${wait} seconds`,
    );
  // Callback hooks, not async ones: they run on every request, and most of them return at once.
  app.addHook('onRequest', (request, reply, done) => {
    if (exempt(request.url)) return done();
    // A token counts for the API, not for the documents (which take none).
    if (request.headers.authorization !== undefined && !documents(request.url)) return done();
    const anonymous = budgetOf(request.url);
    if (!anonymous.exceeded(request.ip)) return done();
    const wait = anonymous.hit(request.ip);
    reply
      .code(429)
      .header('retry-after', String(wait))
      .type('application/json; charset=utf-8')
      .send(refusal(request.url, wait));
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    if (request.principal !== null || reply.statusCode === 429 || reply.statusCode >= 500 || exempt(request.url))
      return done(null, payload);
    const wait = budgetOf(request.url).hit(request.ip);
    if (wait === 0) return done(null, payload);
    reply.code(429).header('retry-after', String(wait)).type('application/json; charset=utf-8');
    reply.removeHeader('link');
    reply.removeHeader('content-length');
    done(null, refusal(request.url, wait));
  });
}
