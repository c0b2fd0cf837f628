// When a failed delivery is tried again: Svix's schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, then every 10 h),
// scaled from the configured first delay, with +-20% jitter so a receiver coming back is not hit by a herd, never
// sooner than the receiver's Retry-After, and never beyond the retry period (then the delivery fails).

// Multiples of the first delay: 5 s -> 5 s, 5 min, 30 min, 2 h, 5 h, 10 h.
const STEPS = [1, 60, 360, 1_440, 3_600, 7_200] as const;

/** The delay after the `failures`-th failed attempt (1 for the first), jittered. */
export function retryDelayMs(failures: number, firstMs: number, random: () => number = Math.random): number {
  const step = STEPS[Math.min(Math.max(failures, 1), STEPS.length) - 1]!;
  return Math.round(firstMs * step * (0.8 + 0.4 * random()));
}

/** A Retry-After header (delay in seconds, or an HTTP date) in milliseconds from `now`; undefined when absent or bad. */
export function retryAfterMs(header: string | undefined, now: number): number | undefined {
  if (header === undefined) return undefined;
  const text = header.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** When to try again after the `failures`-th failure, or undefined when that would fall beyond the retry period. */
export function nextAttemptAt(options: {
  failures: number;
  createdAt: number;
  now: number;
  retryAfterMs: number | undefined;
  firstMs: number;
  periodMs: number;
}): number | undefined {
  const delay = Math.max(retryDelayMs(options.failures, options.firstMs), options.retryAfterMs ?? 0);
  const at = options.now + delay;
  return at > options.createdAt + options.periodMs ? undefined : at;
}
