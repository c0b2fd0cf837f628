// The open-loop generator's clock work (tools/bench/src/send-schedule.ts) on a fake clock: sends fall due on a fixed
// schedule, each is charged how late it left, the driver reaches each send on time although its timers fire late,
// and a latency figure is judged against its goal and the generator's own lag: met at or under the goal whatever
// the lag, missed over it only while the lag is a small share of it, and without a goal standing only while the lag
// is small both as a share and in milliseconds.
import { describe, expect, it } from 'vitest';
import {
  type Clock,
  judge,
  judgeRun,
  OVER_GOAL,
  percentiles,
  realClock,
  runSchedule,
  SendSchedule,
  SMALL_LAG,
  UNDER_GOAL,
} from '../src/send-schedule.js';

/**
 * A fake clock: the alarm rings `alarmLateMs` after the time it was set for (a kernel's sleep is not exact), and
 * `busyMs(now)` is time the event loop spends elsewhere (reading answers, or off its core) before it runs the callback.
 */
function fakeClock(options: { alarmLateMs: number; busyMs?: (now: number) => number }) {
  let now = 0;
  let alarm: { at: number; then: () => void } | undefined;
  let alarms = 0;
  const clock: Clock = {
    now: () => now,
    wakeAt: (time, then) => {
      alarms++;
      alarm = { at: Math.max(now, time + options.alarmLateMs), then };
    },
  };
  const run = () => {
    for (let next = alarm; next; next = alarm) {
      alarm = undefined;
      now = next.at + (options.busyMs?.(next.at) ?? 0);
      next.then();
    }
  };
  return { clock, run, alarms: () => alarms };
}

describe('the send schedule', () => {
  it('makes send i due at start + i / rate and charges each the time it left after that', () => {
    const schedule = new SendSchedule({ rate: 1000, total: 5, start: 100 });
    expect(schedule.next()).toBe(100);
    expect(schedule.due(99.9)).toEqual([]);
    expect(schedule.due(100)).toEqual([100]);
    expect(schedule.due(100.5)).toEqual([]);
    expect(schedule.next()).toBe(101);
    // Late: every send that fell due meanwhile leaves now, each with its own lag (2 ms, 1 ms, 0 ms).
    expect(schedule.due(103)).toEqual([101, 102, 103]);
    expect(schedule.due(110)).toEqual([104]);
    expect(schedule.next()).toBeUndefined();
    expect(schedule.sent).toBe(5);
    expect(schedule.lag()).toEqual({ count: 5, p50: 1, p99: 6, p999: 6, max: 6 });
  });
});

describe('the driver', () => {
  it("sets the alarm for each send and sends it at its time, charged only the alarm's lateness", async () => {
    const fake = fakeClock({ alarmLateMs: 0.02 });
    const schedule = new SendSchedule({ rate: 200, total: 100, start: 3 });
    const sent: number[] = [];
    const done = runSchedule(schedule, fake.clock, (intended) => sent.push(intended));
    fake.run();
    await done;
    expect(sent).toEqual(Array.from({ length: 100 }, (_, i) => 3 + i * 5));
    expect(schedule.lag().max).toBeCloseTo(0.02, 9);
    // One alarm per send: nothing turns the loop in between.
    expect(fake.alarms()).toBe(100);
    const verdicts = judgeRun(percentiles([0.3, 0.4, 0.5]), schedule.lag());
    expect(verdicts.p50.valid && verdicts.p99.valid && verdicts.p999.valid).toBe(true);
  });

  it('sends together what fell due while the loop was away, each charged its own lag', async () => {
    // Rate 50,000/s: a send every 0.02 ms, and an alarm that rings 0.05 ms late.
    const fake = fakeClock({ alarmLateMs: 0.05 });
    const schedule = new SendSchedule({ rate: 50_000, total: 1000, start: 0 });
    let count = 0;
    const done = runSchedule(schedule, fake.clock, () => count++);
    fake.run();
    await done;
    expect(count).toBe(1000);
    expect(fake.alarms()).toBeLessThan(1000);
    expect(schedule.lag().max).toBeLessThanOrEqual(0.05 + 1e-9);
  });

  it('charges a loop held up elsewhere to the lag, and the figures it made are refused', async () => {
    // Every 10 ms the loop is held 3 ms (reading a burst of answers, or off its core).
    const fake = fakeClock({ alarmLateMs: 0.01, busyMs: (now) => (Math.floor(now) % 10 === 0 ? 3 : 0) });
    const schedule = new SendSchedule({ rate: 1000, total: 500, start: 0.5 });
    const done = runSchedule(schedule, fake.clock, () => {});
    fake.run();
    await done;
    const lag = schedule.lag();
    expect(lag.p99).toBeGreaterThan(1);
    const verdicts = judgeRun(percentiles(Array.from({ length: 1000 }, (_, i) => 1 + i / 100)), lag);
    expect(verdicts.p99.valid).toBe(false);
  });
});

describe('the real alarm', () => {
  it('is ready once created, and never rings before the time it was set for', async () => {
    const clock = await realClock();
    try {
      for (const ahead of [0.05, 0.5, 3]) {
        const time = clock.now() + ahead;
        const rang = await new Promise<number>((resolve) => clock.wakeAt(time, () => resolve(clock.now())));
        expect(rang).toBeGreaterThanOrEqual(time);
      }
    } finally {
      await clock.close();
    }
  });
});

describe('the refusal', () => {
  it('lets a figure stand while the lag at its percentile is at most a quarter of it and at most 1 ms', () => {
    expect(judge(2, 0.5)).toEqual({ valid: true, rule: SMALL_LAG });
    expect(judge(2, 0.51).valid).toBe(false);
    expect(judge(40, 1)).toEqual({ valid: true, rule: SMALL_LAG });
    expect(judge(40, 1.01)).toEqual({
      valid: false,
      reason: "the generator's own lag 1.010 ms exceeds 1.000 ms (min of 1 ms and 25% of 40.000 ms)",
    });
    expect(judge(Number.NaN, 0).valid).toBe(false);
  });

  it('meets a figure at or under its goal whatever the lag, for the lag is inside the figure', () => {
    // p99 4.55 ms against a goal of < 10 ms with the generator 2.8 ms late: the server's share was under 4.55 ms.
    expect(judge(4.55, 2.8, 10)).toEqual({ valid: true, rule: UNDER_GOAL, met: true });
    expect(judge(10, 9.9, 10)).toEqual({ valid: true, rule: UNDER_GOAL, met: true });
    // Without a goal the same figure is not judged: the lag could be most of it.
    expect(judge(4.55, 2.8).valid).toBe(false);
  });

  it('misses a figure over its goal only while the lag is at most a quarter of it', () => {
    expect(judge(12, 0.4, 10)).toEqual({ valid: true, rule: OVER_GOAL, met: false });
    expect(judge(12, 3, 10)).toEqual({ valid: true, rule: OVER_GOAL, met: false });
    // Far over its goal, the generator 5 ms late: 1 ms would refuse it without a goal, but the lag is 0.6% of it.
    expect(judge(838, 5, 10)).toEqual({ valid: true, rule: OVER_GOAL, met: false });
    // The lag more than a quarter of it: the lag may be what put it over, so it is not judged.
    expect(judge(12, 3.1, 10)).toEqual({
      valid: false,
      reason: "the generator's own lag 3.100 ms exceeds 3.000 ms (25% of 12.000 ms)",
    });
    expect(judge(Number.NaN, 0, 10).valid).toBe(false);
  });

  it('judges p50, p99 and p99.9 each against the lag at the same percentile', () => {
    const latency = { count: 1000, p50: 0.4, p99: 3, p999: 8, max: 9 };
    const verdicts = judgeRun(latency, { count: 1000, p50: 0.05, p99: 0.9, p999: 2.5, max: 3 });
    expect(verdicts.p50.valid).toBe(true);
    expect(verdicts.p99.valid).toBe(false);
    expect(verdicts.p999.valid).toBe(false);
  });
});
