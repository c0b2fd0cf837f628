// Rate limits per principal (fixed windows), and per client address for requests without a valid token
// (anonymous-limit.ts). The counters live in the Redis client passed in (shared by every instance) or, without one,
// in this process. One callback hook: @fastify/rate-limit, used before, awaited four promises per request. The
// caller owns the client: it creates it from REDIS_URL (createRateLimitRedis) and closes it, like the store. While
// Redis is unreachable each process counts on its own (rate-limit-store.ts), and /readyz says degraded.
import { ApiError, rateLimitMessage } from '@plant-store/contract';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { registerAnonymousLimit } from './anonymous-limit.js';
import { createLocalCounter, createSharedCounter, type RateLimitBackend } from './rate-limit-store.js';

export interface RateLimitOptions {
  /** Requests per principal and window; 0 for no such limit (the anonymous budget stays). */
  max: number;
  windowMs: number;
  /** Requests per client address and window that end without a valid token; 0 for no such limit. */
  anonymousMax: number;
  redis?: Redis | undefined;
}

/**
 * A Redis client for shared rate limits that fails fast: no offline queue and a 50 ms command timeout, so an
 * unreachable Redis never holds a request up (ioredis would otherwise queue commands while offline).
 */
export async function createRateLimitRedis(url: string): Promise<Redis> {
  // Imported here, so a service without REDIS_URL never loads ioredis.
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, {
    connectTimeout: 1_000,
    commandTimeout: 50,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    lazyConnect: false,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
  });
  // Listened to from the start: an error with no listener is printed by ioredis as a raw stack on stderr
  // ("[ioredis] Unhandled error event"). The shared counter logs the state once it exists (createSharedCounter).
  redis.on('error', () => {});
  return redis;
}

/**
 * The decimal text of a whole number of requests. toFixed, not String: V8 keeps the strings String() makes of numbers
 * in its number-string cache, where a count that is new on every request outlives young collections and is promoted,
 * dying in the old space: a mark-compact every few seconds under load, each a pause in the p99 (this function's test).
 */
export const remainingText = (remaining: number): string => remaining.toFixed(0);

/** Registers the limits; the backend tells readiness whether counters are shared (null without Redis). */
export async function registerRateLimit(
  app: FastifyInstance,
  options: RateLimitOptions,
): Promise<RateLimitBackend | null> {
  if (options.anonymousMax > 0) registerAnonymousLimit(app, { max: options.anonymousMax, windowMs: options.windowMs });
  if (options.max === 0) return null;
  const { redis, max, windowMs } = options;
  const shared = redis
    ? createSharedCounter(redis, 'plant-store:rate:principal:', {
        warn: (message) => app.log.warn(message),
        info: (message) => app.log.info(message),
      })
    : undefined;
  // The client is closed with the app: that close is no outage to report.
  if (shared) app.addHook('preClose', async () => shared.stop());
  const count = shared?.count ?? createLocalCounter();
  const limit = String(max);
  // After authentication (onRequest), before the body is read: limits are per principal. Requests without one are
  // counted per address by the anonymous limit instead. A callback hook: in this process the count is known at once.
  app.addHook('preParsing', (request, reply, _payload, done) => {
    const principal = request.principal;
    if (principal === null) return done();
    // Keyed by the subject itself: a key built per request is a new string, hashed anew by every lookup.
    count(principal.subject, windowMs, (current, ttl) => {
      const seconds = String(Math.max(1, Math.ceil(ttl / 1000)));
      if (current <= max) {
        // One call a header: an object of them would be built and walked per request.
        reply.header('x-ratelimit-limit', limit);
        reply.header('x-ratelimit-remaining', remainingText(max - current));
        reply.header('x-ratelimit-reset', seconds);
        return done();
      }
      done(
        new ApiError(429, rateLimitMessage(max, seconds), {
          'x-ratelimit-limit': limit,
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset': seconds,
          'retry-after': seconds,
        }),
      );
    });
  });
  return shared?.backend ?? null;
}
