// Rate limits per principal. The counters live in the Redis client passed in (shared by every instance) or, without
// one, in this process. The caller owns the client: it creates it from REDIS_URL and closes it, like the store.
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { ApiError } from '../errors.js';

export interface RateLimitOptions {
  max: number;
  windowMs: number;
  redis?: Redis | undefined;
}

/** A Redis client for shared rate limits: fails fast, so an unreachable Redis never holds a request up. */
export function createRateLimitRedis(url: string): Redis {
  return new Redis(url, { connectTimeout: 1_000, maxRetriesPerRequest: 1, lazyConnect: false });
}

export async function registerRateLimit(app: FastifyInstance, options: RateLimitOptions): Promise<void> {
  const { redis } = options;
  if (redis) redis.on('error', (error) => app.log.warn({ err: error }, 'redis for rate limits is unreachable'));
  await app.register(rateLimit, {
    // skipOnError: an unreachable Redis lets requests through rather than failing them.
    ...(redis ? { redis, nameSpace: 'plant-store:rate:', skipOnError: true } : {}),
    global: true,
    // After authentication (onRequest), before the body is read: limits are per principal.
    hook: 'preParsing',
    max: options.max,
    timeWindow: options.windowMs,
    allowList: (request) => request.principal === null,
    keyGenerator: (request) => `principal:${request.principal?.subject ?? request.ip}`,
    errorResponseBuilder: (_request, context) =>
      new ApiError(429, `rate limit of ${context.max} requests exceeded; retry in ${context.after}`),
  });
}
