// The open-loop generator's clock work, free of sockets so a fake clock can test it: a fixed schedule of intended send
// times (wrk2's method: send i is due at start + i / rate, whatever the answers do), how late each send actually left
// (the generator's own lag), and the rule that judges a latency figure the generator's lag is part of.
//
// Timers cannot keep such a schedule: Node's setTimeout sleeps whole milliseconds and fires up to about 1 ms late,
// which once put a floor of 1.2-1.4 ms under every p50 at 50% load; spinning the event loop instead keeps a core busy
// and pushes every other process onto the server's. So the real clock's alarm is a worker thread (send-alarm.mjs)
// that sleeps in the kernel (Atomics.wait, sub-millisecond) until the send is due and wakes the generator's event loop
// through shared memory (Atomics.waitAsync): no message per send, and setting the next alarm wakes no one. Each wake
// costs some 10-25 us of CPU (a 2-core shared machine), so the alarm rings at most once per TICK_MS and every send due
// by then leaves in that turn; and whenever the loop wakes for answers it sends what has fallen due too
// (ScheduleDriver.pump), which moves the alarm later. Either way each send is charged its lag, the time it left minus
// its intended time.
import { Worker } from 'node:worker_threads';

/**
 * The lag rule: a latency percentile without a goal stands when the generator's own lag at the same percentile is at
 * most a quarter of it and at most 1 ms: what the generator adds must stay a small part of what it reports. A figure
 * with a goal is judged against the goal instead (judge).
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

  /** When the send after the next one is due (undefined if there is none): no alarm after the next is earlier. */
  following(): number | undefined {
    return this.#next + 1 < this.#total ? this.#intended(this.#next + 1) : undefined;
  }

  /** How late the sends left, in milliseconds. */
  lag(): Percentiles {
    return percentiles(this.#lags);
  }
}

/**
 * The driver's clock: the time, and one alarm that calls back at a given time (tests pass a fake one). Setting the
 * alarm replaces the one set before; `after`, when given, promises that the alarm set after this one will be no
 * earlier (the real alarm sleeps until then after ringing, instead of looking again every tick).
 */
export interface Clock {
  now(): number;
  wakeAt(time: number, then: () => void, after?: number): void;
}

/** The last stretch before a send that the alarm worker waits out awake, for precision beyond the kernel's sleep. */
export const SPIN_MS = 0.1;
/**
 * The most of a core the spin may take: the alarm spins only for an alarm at least SPIN_MS / SPIN_SHARE (1 ms) after
 * its last ring, so above about 1,000 sends a second it never spins and the kernel's sleep (0.03-0.05 ms late) is all
 * it has.
 */
export const SPIN_SHARE = 0.1;
/** The alarm rings at most once per tick: above 1 / TICK_MS sends a second, several leave per ring. */
export const TICK_MS = 0.1;

// Atomics.waitAsync (Node 16 on) is typed only from lib ES2024; the project compiles against ES2023.
const waitAsync = (
  Atomics as unknown as {
    waitAsync(array: Int32Array, index: number, value: number): { async: boolean; value: Promise<unknown> | string };
  }
).waitAsync;

/**
 * The real clock: milliseconds since the epoch with sub-millisecond precision, and the alarm worker, ready once this
 * resolves (a worker takes a while to boot: an alarm set before would ring late by that much). `now` replaces this
 * thread's clock (tests skew it against the worker's).
 */
export async function realClock(
  options: { now?: () => number } = {},
): Promise<Clock & { close(): Promise<void>; rings(): number }> {
  const buffer = new SharedArrayBuffer(24);
  const words = new Int32Array(buffer, 0, 2);
  // The alarm's time, then the earliest the one after it can be (0: unknown). Written in that order, read in the
  // other (x64 keeps stores in order, and loads): a pair read together never has an `after` newer than its time.
  const times = new Float64Array(buffer, 8, 2);
  const [SEQ, RING] = [0, 1];
  const alarm = new Worker(new URL('./send-alarm.mjs', import.meta.url), {
    workerData: { buffer, spinMs: SPIN_MS, spinShare: SPIN_SHARE, tickMs: TICK_MS },
    execArgv: [],
  });
  const now = options.now ?? (() => performance.timeOrigin + performance.now());
  let pending: { time: number; then: () => void } | undefined;
  let rings = 0;
  // The time last written for the worker (0: none yet).
  let written = 0;
  const write = (time: number, after = 0) => {
    times[0] = written = time;
    times[1] = after;
  };
  const restart = (time: number, after = 0) => {
    write(time, after);
    Atomics.add(words, SEQ, 1);
    Atomics.notify(words, SEQ);
  };
  const fire = () => {
    if (!pending || pending.time > now()) return;
    const { then } = pending;
    pending = undefined;
    then();
  };
  const listen = (seen: number): void => {
    const wait = waitAsync(words, RING, seen);
    const rang = () => {
      rings++;
      listen(Atomics.load(words, RING));
      // Rung before the alarm is due on this thread's clock: the worker's clock runs a few microseconds apart from
      // this one (each thread's performance.timeOrigin is its own), or the alarm moved later after the worker read
      // it. The worker now waits for a new time, so it is restarted on this one; left alone, the alarm would be lost.
      if (pending && pending.time > now()) restart(pending.time);
      else fire();
    };
    if (wait.async) (wait.value as Promise<unknown>).then(rang);
    else queueMicrotask(rang);
  };
  listen(0);
  const clock = {
    now,
    rings: () => rings,
    wakeAt(time: number, then: () => void, after?: number) {
      pending = { time, then };
      if (time <= now()) setImmediate(fire);
      // The first alarm, or one not later than the last time written (the worker may have rung for that one already).
      else if (written === 0 || time <= written) restart(time, after);
      // Later: a plain write the worker reads when it wakes, no wake-up now.
      else write(time, after);
    },
    close: async () => {
      Atomics.store(words, SEQ, -1);
      Atomics.notify(words, SEQ);
      await alarm.terminate();
    },
  };
  // One alarm rung before any is relied on: the worker has booted and answers.
  await new Promise<void>((resolve) => clock.wakeAt(now() + 1, resolve));
  return clock;
}

/**
 * Drives a schedule on a clock: at each alarm it sends every send due by then and sets the alarm for the next one;
 * `pump()`, called from wherever the loop already is (answers arriving), does the same without waiting for the alarm.
 */
export class ScheduleDriver {
  readonly #schedule: SendSchedule;
  readonly #clock: Clock;
  readonly #send: (intended: number) => void;
  #done: (() => void) | undefined;

  constructor(schedule: SendSchedule, clock: Clock, send: (intended: number) => void) {
    this.#schedule = schedule;
    this.#clock = clock;
    this.#send = send;
  }

  /** Resolves once every send has left. */
  run(): Promise<void> {
    return new Promise((resolve) => {
      this.#done = resolve;
      this.#tick();
    });
  }

  /** Sends what has fallen due by now, if anything; cheap when nothing has (one clock read). */
  pump(): void {
    const next = this.#schedule.next();
    if (this.#done && next !== undefined && next <= this.#clock.now()) this.#tick();
  }

  readonly #tick = (): void => {
    for (const intended of this.#schedule.due(this.#clock.now())) this.#send(intended);
    const next = this.#schedule.next();
    if (next !== undefined) this.#clock.wakeAt(next, this.#tick, this.#schedule.following());
    else if (this.#done) {
      const done = this.#done;
      this.#done = undefined;
      done();
    }
  };
}

/** Runs the schedule to its end, calling `send` with each intended time as it falls due. */
export function runSchedule(schedule: SendSchedule, clock: Clock, send: (intended: number) => void): Promise<void> {
  return new ScheduleDriver(schedule, clock, send).run();
}

/**
 * Which rule let a figure stand: at or under its goal, which the lag cannot have helped (latency counts from the
 * intended send time, so the lag is inside the figure and only made it larger); over its goal, with the lag a small
 * share of it; or, without a goal, with the lag small both as a share and in milliseconds.
 */
export const UNDER_GOAL = 'at or under its goal, the lag counted in';
export const OVER_GOAL = `over its goal, the lag within ${LAG_SHARE_LIMIT * 100}% of it`;
export const SMALL_LAG = `lag within min(${LAG_LIMIT_MS} ms, ${LAG_SHARE_LIMIT * 100}%) of it`;

/** A figure that stands (with `met` when it had a goal), or one that is not judged, and why. */
export type Verdict =
  | { valid: true; rule: typeof UNDER_GOAL | typeof OVER_GOAL | typeof SMALL_LAG; met?: boolean }
  | { valid: false; reason: string };

/**
 * Whether a latency percentile stands, given the generator's lag at the same percentile (both in ms) and, when the
 * figure has one, its goal (met at or under it). A figure at or under its goal is met whatever the lag; one over it
 * is missed only while the lag is at most a quarter of it, for a larger lag could be what put it over; one without a
 * goal stands while the lag is at most a quarter of it and 1 ms.
 */
export function judge(latencyMs: number, lagMs: number, goalMs?: number): Verdict {
  if (goalMs !== undefined && latencyMs <= goalMs) return { valid: true, rule: UNDER_GOAL, met: true };
  const share = LAG_SHARE_LIMIT * latencyMs;
  const limit = goalMs === undefined ? Math.min(LAG_LIMIT_MS, share) : share;
  if (!(lagMs <= limit)) {
    const of = `${LAG_SHARE_LIMIT * 100}% of ${latencyMs.toFixed(3)} ms`;
    return {
      valid: false,
      reason: `the generator's own lag ${lagMs.toFixed(3)} ms exceeds ${limit.toFixed(3)} ms (${goalMs === undefined ? `min of ${LAG_LIMIT_MS} ms and ${of}` : of})`,
    };
  }
  return goalMs === undefined ? { valid: true, rule: SMALL_LAG } : { valid: true, rule: OVER_GOAL, met: false };
}

export type Judged = 'p50' | 'p99' | 'p999';

/** The verdict on each of a run's p50, p99 and p99.9, against the generator's lag at the same percentile. */
export function judgeRun(latency: Percentiles, lag: Percentiles): Record<Judged, Verdict> {
  return { p50: judge(latency.p50, lag.p50), p99: judge(latency.p99, lag.p99), p999: judge(latency.p999, lag.p999) };
}
