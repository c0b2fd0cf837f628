// Rate-limit counters. A per-process fixed-window counter with bounded memory (used for requests without a valid
// token, see anonymous-limit.ts, without Redis, and while Redis is away), and the counter rate-limit.ts uses when
// REDIS_URL is set: shared through Redis while it answers, the per-process count (the same budget) while it does not.
// Redis commands fail fast (no offline queue, a command timeout of tens of milliseconds, see rate-limit.ts), so an
// unreachable Redis never stalls a request; each change of state is logged once.
import type { Redis } from 'ioredis';

/**
 * Counts one request for `key` in its window of `windowMs`; `counted` hears the count so far and the ms left in the
 * window, at once when counted in this process, once Redis answers when shared.
 */
export type Counter = (key: string, windowMs: number, counted: (current: number, ttl: number) => void) => void;

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

/** A Counter over per-process fixed windows. */
export function createLocalCounter(): Counter {
  const windows = createFixedWindows();
  return (key, windowMs, counted) => {
    const now = Date.now();
    const { count, resetAt } = windows.hit(key, windowMs, now);
    counted(count, resetAt - now);
  };
}

const SCRIPT = `
  local current = redis.call('INCR', KEYS[1])
  if current == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
  return {current, redis.call('PTTL', KEYS[1])}`;

/**
 * A Counter shared through Redis while it answers, and the state it is in. `log` is told once per change, until
 * `stop()` (the service is closing the client: its close is no outage).
 */
export function createSharedCounter(
  redis: Redis,
  nameSpace: string,
  log: { warn(message: string): void; info(message: string): void },
): { count: Counter; backend: RateLimitBackend; stop(): void } {
  const local = createLocalCounter();
  let state: 'redis' | 'local' = redis.status === 'ready' ? 'redis' : 'local';
  let announced: 'redis' | 'local' | null = null;
  let stopped = false;
  const announce = () => {
    if (announced === state || stopped) return;
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
  const count: Counter = (key, windowMs, counted) => {
    if (state !== 'redis' || redis.status !== 'ready') {
      goLocal();
      local(key, windowMs, counted);
      return;
    }
    shared.plantStoreRateLimit(`${nameSpace}${key}`, windowMs, (error, result) => {
      if (error) {
        goLocal();
        local(key, windowMs, counted);
        return;
      }
      const [current, ttl] = result as [number, number];
      counted(current, ttl < 0 ? windowMs : ttl);
    });
  };
  return {
    count,
    backend: { state: () => state },
    stop: () => {
      stopped = true;
    },
  };
}
