// The open-loop generator's clock work, free of sockets so a fake clock can test it: a fixed schedule of intended send
// times (wrk2's method: send i is due at start + i / rate, whatever the answers do), how late each send actually left
// (the generator's own lag), and the rule that refuses a latency figure the generator's lag could have made.
//
// Timers cannot keep such a schedule: Node's setTimeout sleeps whole milliseconds and fires up to about 1 ms late,
// which once put a floor of 1.2-1.4 ms under every p50 at 50% load; spinning the event loop instead keeps a core busy
// and pushes every other process onto the server's. So the real clock's alarm is a worker thread (send-alarm.mjs)
// that sleeps in the kernel (Atomics.wait, sub-millisecond) until just before the send is due, waits out the last
// SPIN_MS on its own, and wakes the generator's event loop with a message; between sends that loop sleeps in epoll,
// reading answers as they come.
import { Worker } from 'node:worker_threads';

/**
 * The refusal rule: a latency percentile is refused when the generator's own lag at the same percentile exceeds a
 * quarter of it or 1 ms, whichever is less: what the generator adds must stay a small part of what it reports.
 */
export const LAG_SHARE_LIMIT = 0.25;
export const LAG_LIMIT_MS = 1;

export interface Percentiles {
  count: number;
  p50: number;
  p99: number;
  p999: number;
  max: number;
}

export function percentiles(values: readonly number[]): Percentiles {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) =>
    sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
  return { count: sorted.length, p50: at(0.5), p99: at(0.99), p999: at(0.999), max: sorted.at(-1) ?? Number.NaN };
}

export class SendSchedule {
  readonly #start: number;
  readonly #interval: number;
  readonly #total: number;
  #next = 0;
  readonly #lags: number[] = [];

  /** `total` sends at `rate` per second, the first due at `start` (milliseconds on the driver's clock). */
  constructor(options: { rate: number; total: number; start: number }) {
    this.#start = options.start;
    this.#interval = 1000 / options.rate;
    this.#total = options.total;
  }

  get sent(): number {
    return this.#next;
  }

  #intended(index: number): number {
    return this.#start + index * this.#interval;
  }

  /** The intended times of every send due at `now`, in order; each is charged its lag, `now` minus its time. */
  due(now: number): number[] {
    const due: number[] = [];
    while (this.#next < this.#total && this.#intended(this.#next) <= now) {
      const intended = this.#intended(this.#next++);
      this.#lags.push(now - intended);
      due.push(intended);
    }
    return due;
  }

  /** When the next send is due, or undefined once every send has left. */
  next(): number | undefined {
    return this.#next < this.#total ? this.#intended(this.#next) : undefined;
  }

  /** How late the sends left, in milliseconds. */
  lag(): Percentiles {
    return percentiles(this.#lags);
  }
}

/** The driver's clock: the time, and an alarm that calls back at a given time (tests pass a fake one). */
export interface Clock {
  now(): number;
  wakeAt(time: number, then: () => void): void;
}

/** The last stretch before a send that the alarm worker waits out awake, for precision beyond the kernel's sleep. */
export const SPIN_MS = 0.1;

/**
 * The real clock: milliseconds since the epoch with sub-millisecond precision, and the alarm worker, ready once this
 * resolves (a worker takes a while to boot: an alarm set before would ring late by that much).
 */
export async function realClock(): Promise<Clock & { close(): Promise<number> }> {
  const alarm = new Worker(new URL('./send-alarm.mjs', import.meta.url), {
    workerData: { spinMs: SPIN_MS },
    execArgv: [],
  });
  let waiting: (() => void) | undefined;
  alarm.on('message', () => {
    const then = waiting;
    waiting = undefined;
    then?.();
  });
  const now = () => performance.timeOrigin + performance.now();
  const clock = {
    now,
    wakeAt(time: number, then: () => void) {
      if (time <= now()) {
        setImmediate(then);
        return;
      }
      waiting = then;
      alarm.postMessage(time);
    },
    close: () => alarm.terminate(),
  };
  // One alarm rung before any is relied on: the worker has booted and answers.
  await new Promise<void>((resolve) => {
    waiting = resolve;
    alarm.postMessage(now());
  });
  return clock;
}

/** Runs the schedule to its end, calling `send` with each intended time as it falls due. */
export function runSchedule(schedule: SendSchedule, clock: Clock, send: (intended: number) => void): Promise<void> {
  return new Promise((resolve) => {
    const tick = () => {
      for (const intended of schedule.due(clock.now())) send(intended);
      const next = schedule.next();
      if (next === undefined) resolve();
      else clock.wakeAt(next, tick);
    };
    tick();
  });
}

export type Verdict = { valid: true } | { valid: false; reason: string };

/** Whether a latency percentile stands, given the generator's lag at the same percentile (both in ms). */
export function judge(latencyMs: number, lagMs: number): Verdict {
  const limit = Math.min(LAG_LIMIT_MS, LAG_SHARE_LIMIT * latencyMs);
  if (!(lagMs <= limit)) {
    return {
      valid: false,
      reason: `the generator's own lag ${lagMs.toFixed(3)} ms exceeds ${limit.toFixed(3)} ms (min of ${LAG_LIMIT_MS} ms and ${LAG_SHARE_LIMIT * 100}% of ${latencyMs.toFixed(3)} ms)`,
    };
  }
  return { valid: true };
}

export type Judged = 'p50' | 'p99' | 'p999';

/** The verdict on each of a run's p50, p99 and p99.9, against the generator's lag at the same percentile. */
export function judgeRun(latency: Percentiles, lag: Percentiles): Record<Judged, Verdict> {
  return { p50: judge(latency.p50, lag.p50), p99: judge(latency.p99, lag.p99), p999: judge(latency.p999, lag.p999) };
}
