// The store behind @fastify/rate-limit when REDIS_URL is set: counters shared through Redis while it answers, and a
// per-process fixed-window count (the same budget) while it does not. Redis commands fail fast (no offline queue, a
// command timeout of tens of milliseconds), so an unreachable Redis never stalls a request; each change of state is
// logged once.
import type { FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { Redis } from 'ioredis';

type Incr = (
  key: string,
  callback: (error: Error | null, result?: { current: number; ttl: number }) => void,
  timeWindow: number,
  max: number,
) => void;

export interface RateLimitBackend {
  /** 'redis' while counters are shared, 'local' while Redis is away and this process counts alone. */
  state(): 'redis' | 'local';
}

const MAX_LOCAL_KEYS = 100_000;

/** A per-process fixed-window counter with bounded memory. */
export function createLocalCounter(): Incr {
  const windows = new Map<string, { current: number; resetAt: number }>();
  return (key, callback, timeWindow) => {
    const now = Date.now();
    let window = windows.get(key);
    if (!window || window.resetAt <= now) {
      if (window) windows.delete(key);
      if (windows.size >= MAX_LOCAL_KEYS) {
        const oldest = windows.keys().next().value;
        if (oldest !== undefined) windows.delete(oldest);
      }
      window = { current: 0, resetAt: now + timeWindow };
      windows.set(key, window);
    }
    window.current++;
    callback(null, { current: window.current, ttl: window.resetAt - now });
  };
}

const SCRIPT = `
  local current = redis.call('INCR', KEYS[1])
  if current == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
  return {current, redis.call('PTTL', KEYS[1])}`;

/**
 * A store class for @fastify/rate-limit's `store` option, and the state it is in. `log` is told once per change.
 */
export function createFallbackStore(
  redis: Redis,
  nameSpace: string,
  log: { warn(message: string): void; info(message: string): void },
): { Store: FastifyRateLimitStoreCtor; backend: RateLimitBackend } {
  const local = createLocalCounter();
  let state: 'redis' | 'local' = redis.status === 'ready' ? 'redis' : 'local';
  let announced: 'redis' | 'local' | null = null;
  const announce = () => {
    if (announced === state) return;
    if (state === 'local') {
      // The first state is only worth a line when it is the degraded one.
      log.warn('redis for rate limits is unreachable: limiting per process until it is back');
    } else if (announced !== null) {
      log.info('redis for rate limits is reachable again: limits are shared');
    }
    announced = state;
  };
  const goLocal = () => {
    state = 'local';
    announce();
  };
  redis.on('ready', () => {
    state = 'redis';
    announce();
  });
  redis.on('error', goLocal);
  redis.on('close', goLocal);
  redis.defineCommand('plantStoreRateLimit', { numberOfKeys: 1, lua: SCRIPT });
  const shared = redis as unknown as {
    plantStoreRateLimit(key: string, windowMs: number, callback: (error: Error | null, result: unknown) => void): void;
  };

  class FallbackStore {
    incr: Incr = (key, callback, timeWindow, max) => {
      if (state !== 'redis' || redis.status !== 'ready') {
        goLocal();
        local(key, callback, timeWindow, max);
        return;
      }
      shared.plantStoreRateLimit(`${nameSpace}${key}`, timeWindow, (error, result) => {
        if (error) {
          goLocal();
          local(key, callback, timeWindow, max);
          return;
        }
        const [current, ttl] = result as [number, number];
        callback(null, { current, ttl: ttl < 0 ? timeWindow : ttl });
      });
    };
    child() {
      return this as never;
    }
  }
  return { Store: FallbackStore, backend: { state: () => state } };
}
