// A per-address budget for requests that end without a principal: missing or bad tokens, unknown routes, refused
// methods, the docs. Kept in this process (fixed windows, bounded memory): a flood from one address ends in 429
// whatever it sends, while authenticated callers are limited per principal by @fastify/rate-limit.

export interface AnonymousLimiter {
  /** Counts one request from `address`; returns the seconds to wait when it is over the budget, else 0. */
  hit(address: string, now?: number): number;
  /** True when `address` is already over its budget in the current window (counts nothing). */
  exceeded(address: string, now?: number): boolean;
}

/** At most this many addresses are tracked; beyond it the oldest windows are dropped first. */
const MAX_ADDRESSES = 100_000;

export function createAnonymousLimiter(max: number, windowMs: number): AnonymousLimiter {
  // Map order is insertion order: re-inserting on a new window keeps the oldest first for eviction.
  const windows = new Map<string, { count: number; resetAt: number }>();
  const current = (address: string, now: number) => {
    const found = windows.get(address);
    if (found && found.resetAt > now) return found;
    if (found) windows.delete(address);
    if (windows.size >= MAX_ADDRESSES) {
      const oldest = windows.keys().next().value;
      if (oldest !== undefined) windows.delete(oldest);
    }
    const fresh = { count: 0, resetAt: now + windowMs };
    windows.set(address, fresh);
    return fresh;
  };
  return {
    hit(address, now = Date.now()) {
      const window = current(address, now);
      window.count++;
      return window.count > max ? Math.max(1, Math.ceil((window.resetAt - now) / 1000)) : 0;
    },
    exceeded(address, now = Date.now()) {
      const found = windows.get(address);
      return found !== undefined && found.resetAt > now && found.count >= max;
    },
  };
}
