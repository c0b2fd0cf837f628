// Rate-limit counters. A per-process fixed-window counter with bounded memory (used for requests without a valid
// token, see anonymous-limit.ts, and while Redis is away), and the store behind @fastify/rate-limit when REDIS_URL is
// set: counters shared through Redis while it answers, the per-process count (the same budget) while it does not.
// Redis commands fail fast (no offline queue, a command timeout of tens of milliseconds, see rate-limit.ts), so an
// unreachable Redis never stalls a request; each change of state is logged once.
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

/** At most this many keys (principals, addresses) are counted; beyond it the oldest windows are dropped first. */
const MAX_KEYS = 100_000;

export interface FixedWindows {
  /** Counts one request for `key`; its window (started now when none is running) after counting. */
  hit(key: string, windowMs: number, now?: number): { count: number; resetAt: number };
  /** The running window of `key` without counting, if any. */
  peek(key: string, now?: number): { count: number; resetAt: number } | undefined;
}

/** Per-process fixed windows with bounded memory (Map order is insertion order: the oldest windows go first). */
export function createFixedWindows(): FixedWindows {
  const windows = new Map<string, { count: number; resetAt: number }>();
  const peek = (key: string, now: number) => {
    const found = windows.get(key);
    return found && found.resetAt > now ? found : undefined;
  };
  return {
    hit(key, windowMs, now = Date.now()) {
      let window = peek(key, now);
      if (!window) {
        windows.delete(key);
        if (windows.size >= MAX_KEYS) {
          const oldest = windows.keys().next().value;
          if (oldest !== undefined) windows.delete(oldest);
        }
        window = { count: 0, resetAt: now + windowMs };
        windows.set(key, window);
      }
      window.count++;
      return window;
    },
    peek: (key, now = Date.now()) => peek(key, now),
  };
}

/** @fastify/rate-limit's incr over per-process fixed windows. */
function createLocalCounter(): Incr {
  const windows = createFixedWindows();
  return (key, callback, timeWindow) => {
    const now = Date.now();
    const { count, resetAt } = windows.hit(key, timeWindow, now);
    callback(null, { current: count, ttl: resetAt - now });
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
