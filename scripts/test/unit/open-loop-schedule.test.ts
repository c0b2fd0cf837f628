// The open-loop generator's clock work (scripts/bench/send-schedule.ts) on a fake clock: sends fall due on a fixed
// schedule, each is charged how late it left, the driver reaches each send on time although its timers fire late,
// and a latency figure the generator's own lag could have made is refused.
import { describe, expect, it } from 'vitest';
import {
  type Clock,
  judge,
  judgeRun,
  percentiles,
  runSchedule,
  SendSchedule,
  SPIN_WINDOW_MS,
} from '../../bench/send-schedule.js';

/**
 * A fake clock: a timer fires `timerLateMs` after its time (as Node's do, by up to about 1 ms), a turn of the loop
 * takes `turnMs`, and `busyMs(now)` is extra time the loop spends elsewhere (reading answers) before the next turn.
 */
function fakeClock(options: { timerLateMs: number; turnMs: number; busyMs?: (now: number) => number }) {
  let now = 0;
  const pending: { at: number; then: () => void }[] = [];
  let sleeps = 0;
  const clock: Clock = {
    now: () => now,
    sleep: (ms, then) => {
      sleeps++;
      pending.push({ at: now + ms + options.timerLateMs, then });
    },
    turn: (then) => pending.push({ at: now + options.turnMs, then }),
  };
  const run = () => {
    for (let next = pending.shift(); next; next = pending.shift()) {
      now = Math.max(now, next.at) + (options.busyMs?.(now) ?? 0);
      next.then();
    }
  };
  return { clock, run, sleeps: () => sleeps };
}

describe('the send schedule', () => {
  it('makes send i due at start + i / rate and charges each the time it left after that', () => {
    const schedule = new SendSchedule({ rate: 1000, total: 5, start: 100 });
    expect(schedule.due(99.9)).toEqual([]);
    expect(schedule.due(100)).toEqual([100]);
    expect(schedule.due(100.5)).toEqual([]);
    // Late: every send that fell due meanwhile leaves now, each with its own lag (2 ms, 1 ms, 0 ms).
    expect(schedule.due(103)).toEqual([101, 102, 103]);
    expect(schedule.done).toBe(false);
    expect(schedule.due(110)).toEqual([104]);
    expect(schedule.done).toBe(true);
    expect(schedule.sent).toBe(5);
    expect(schedule.lag()).toEqual({ count: 5, p50: 1, p99: 6, p999: 6, max: 6 });
  });

  it('sleeps on a timer only until the spin window before the next send, then turns the loop', () => {
    const schedule = new SendSchedule({ rate: 100, total: 2, start: 0 });
    schedule.due(0);
    expect(schedule.wait(0)).toEqual({ done: false, sleepMs: Math.floor(10 - SPIN_WINDOW_MS) });
    expect(schedule.wait(10 - SPIN_WINDOW_MS)).toEqual({ done: false, sleepMs: 0 });
    expect(schedule.wait(9.9)).toEqual({ done: false, sleepMs: 0 });
    schedule.due(10);
    expect(schedule.wait(10)).toEqual({ done: true });
  });
});

describe('the driver', () => {
  it('sends every request within one turn of its time although each timer fires 1 ms late', async () => {
    const fake = fakeClock({ timerLateMs: 1, turnMs: 0.01 });
    const schedule = new SendSchedule({ rate: 200, total: 100, start: 3 });
    const sent: number[] = [];
    const done = runSchedule(schedule, fake.clock, (intended) => sent.push(intended));
    fake.run();
    await done;
    expect(sent).toEqual(Array.from({ length: 100 }, (_, i) => 3 + i * 5));
    expect(schedule.lag().max).toBeLessThanOrEqual(0.01 + 1e-9);
    // It slept between sends rather than spinning all along.
    expect(fake.sleeps()).toBeGreaterThanOrEqual(99);
    const verdicts = judgeRun(percentiles([0.3, 0.4, 0.5]), schedule.lag());
    expect(verdicts.p50.valid && verdicts.p99.valid && verdicts.p999.valid).toBe(true);
  });

  it('keeps the schedule at rates above one send per turn, sending what fell due together', async () => {
    const fake = fakeClock({ timerLateMs: 1, turnMs: 0.05 });
    const schedule = new SendSchedule({ rate: 50_000, total: 1000, start: 0 });
    let count = 0;
    const done = runSchedule(schedule, fake.clock, () => count++);
    fake.run();
    await done;
    expect(count).toBe(1000);
    expect(schedule.lag().max).toBeLessThan(0.05 + 1e-9);
  });

  it('charges a loop held up elsewhere to the lag, and the figures it made are refused', async () => {
    // Every 10 ms the loop is held 3 ms (reading a burst of answers, or off its core).
    const fake = fakeClock({ timerLateMs: 1, turnMs: 0.01, busyMs: (now) => (Math.floor(now) % 10 === 0 ? 3 : 0) });
    const schedule = new SendSchedule({ rate: 1000, total: 500, start: 0 });
    const done = runSchedule(schedule, fake.clock, () => {});
    fake.run();
    await done;
    const lag = schedule.lag();
    expect(lag.p99).toBeGreaterThan(1);
    const verdicts = judgeRun(percentiles(Array.from({ length: 1000 }, (_, i) => 1 + i / 100)), lag);
    expect(verdicts.p99.valid).toBe(false);
  });
});

describe('the refusal', () => {
  it('lets a figure stand while the lag at its percentile is at most a quarter of it and at most 1 ms', () => {
    expect(judge(2, 0.5)).toEqual({ valid: true });
    expect(judge(2, 0.51).valid).toBe(false);
    expect(judge(40, 1)).toEqual({ valid: true });
    expect(judge(40, 1.01)).toEqual({
      valid: false,
      reason: "the generator's own lag 1.010 ms exceeds 1.000 ms (min of 1 ms and 25% of 40.000 ms)",
    });
    expect(judge(Number.NaN, 0).valid).toBe(false);
  });

  it('judges p50, p99 and p99.9 each against the lag at the same percentile', () => {
    const latency = { count: 1000, p50: 0.4, p99: 3, p999: 8, max: 9 };
    const verdicts = judgeRun(latency, { count: 1000, p50: 0.05, p99: 0.9, p999: 2.5, max: 3 });
    expect(verdicts.p50.valid).toBe(true);
    expect(verdicts.p99.valid).toBe(false);
    expect(verdicts.p999.valid).toBe(false);
  });
});
