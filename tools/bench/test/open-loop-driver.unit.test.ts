// The open-loop driver (tools/bench/src/send-schedule.ts, ScheduleDriver) when the loop also wakes for answers: what
// has fallen due leaves then, without the alarm, each send still charged its own lag; an alarm that rings at most once
// per tick sends every send due by then; and the real alarm moved later or earlier rings at the new time only.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type Clock, realClock, ScheduleDriver, SendSchedule } from '../src/send-schedule.js';

/**
 * A fake event loop: one alarm that rings `alarmLateMs` after its time, and at most once per `tickMs` after its last
 * ring; and answers arriving at the given times, each followed by the driver's pump.
 */
function fakeLoop(options: { alarmLateMs: number; tickMs?: number; answersAt?: number[] }) {
  let now = 0;
  let alarm: { at: number; then: () => void } | undefined;
  let lastRing = Number.NEGATIVE_INFINITY;
  let rings = 0;
  const answers = [...(options.answersAt ?? [])];
  const clock: Clock = {
    now: () => now,
    wakeAt: (time, then) => {
      alarm = { at: Math.max(now, time + options.alarmLateMs, lastRing + (options.tickMs ?? 0)), then };
    },
  };
  const run = (driver: ScheduleDriver) => {
    for (;;) {
      const answer = answers[0];
      if (answer !== undefined && (!alarm || answer < alarm.at)) {
        answers.shift();
        now = Math.max(now, answer);
        driver.pump();
      } else if (alarm) {
        const { at, then } = alarm;
        alarm = undefined;
        now = at;
        lastRing = at;
        rings++;
        then();
      } else return;
    }
  };
  return { clock, run, rings: () => rings };
}

describe('the driver with answers arriving', () => {
  it('sends what fell due when the loop wakes for answers, without waiting for the alarm', async () => {
    // 10,000 sends a second; an answer every 0.05 ms; an alarm 0.3 ms late that the answers always beat.
    const loop = fakeLoop({ alarmLateMs: 0.3, answersAt: Array.from({ length: 2100 }, (_, i) => i * 0.05) });
    const schedule = new SendSchedule({ rate: 10_000, total: 1000, start: 0.01 });
    const sent: number[] = [];
    const driver = new ScheduleDriver(schedule, loop.clock, (intended) => sent.push(intended));
    const done = driver.run();
    loop.run(driver);
    await done;
    expect(sent).toHaveLength(1000);
    expect(schedule.lag().max).toBeLessThanOrEqual(0.05 + 1e-9);
    // At most the alarm set before the last send, ringing into a finished schedule.
    expect(loop.rings()).toBeLessThanOrEqual(1);
  });

  it('charges a send that left on an answer the time since its intended time', async () => {
    // 1,000 sends a second from 0; answers come 0.4 ms after each send time; the alarm would be 0.9 ms late.
    const loop = fakeLoop({ alarmLateMs: 0.9, answersAt: Array.from({ length: 100 }, (_, i) => i + 0.4) });
    const schedule = new SendSchedule({ rate: 1000, total: 100, start: 0 });
    const driver = new ScheduleDriver(schedule, loop.clock, () => {});
    const done = driver.run();
    loop.run(driver);
    await done;
    // The first leaves at once (the driver's own first turn); every other one at the next answer, 0.4 ms late.
    expect(schedule.lag()).toMatchObject({ count: 100, p50: expect.closeTo(0.4, 9), max: expect.closeTo(0.4, 9) });
  });

  it('sends nothing on a pump before anything is due, nor after the last send; it resolves once', async () => {
    const loop = fakeLoop({ alarmLateMs: 0, answersAt: [1, 2, 3, 50, 60] });
    const schedule = new SendSchedule({ rate: 100, total: 3, start: 5 });
    const sent: number[] = [];
    const driver = new ScheduleDriver(schedule, loop.clock, (intended) => sent.push(intended));
    let resolved = 0;
    const done = driver.run().then(() => resolved++);
    loop.run(driver);
    driver.pump();
    await done;
    expect(sent).toEqual([5, 15, 25]);
    expect(schedule.lag().max).toBe(0);
    expect(resolved).toBe(1);
  });
});

describe('the alarm after the next', () => {
  it('is the send after the next one, and every alarm the driver sets keeps the promise it made with the last', async () => {
    const schedule = new SendSchedule({ rate: 1000, total: 3, start: 10 });
    expect(schedule.following()).toBe(11);
    schedule.due(10);
    expect(schedule.following()).toBe(12);
    schedule.due(11);
    expect(schedule.following()).toBeUndefined();

    // Answers now and then move sends earlier than their alarms; the alarms still never come before the last promise.
    const set: { time: number; after: number | undefined }[] = [];
    const loop = fakeLoop({ alarmLateMs: 0.03, answersAt: Array.from({ length: 300 }, (_, i) => i * 0.37) });
    const { wakeAt } = loop.clock;
    loop.clock.wakeAt = (time, then, after) => {
      set.push({ time, after });
      wakeAt(time, then, after);
    };
    const busy = new SendSchedule({ rate: 5000, total: 500, start: 0.1 });
    const driver = new ScheduleDriver(busy, loop.clock, () => {});
    const done = driver.run();
    loop.run(driver);
    await done;
    expect(set.length).toBeGreaterThan(10);
    for (let i = 1; i < set.length; i++) expect(set[i]!.time).toBeGreaterThanOrEqual(set[i - 1]!.after ?? 0);
  });
});

describe('the driver on an alarm that rings at most once per tick', () => {
  it('sends at each ring every send due by then, each charged its lag, within a tick and the lateness', async () => {
    // 40,000 sends a second (one every 0.025 ms) on an alarm that rings at most every 0.1 ms, 0.02 ms late.
    const loop = fakeLoop({ alarmLateMs: 0.02, tickMs: 0.1 });
    const schedule = new SendSchedule({ rate: 40_000, total: 4000, start: 0 });
    const sent: number[] = [];
    const driver = new ScheduleDriver(schedule, loop.clock, (intended) => sent.push(intended));
    const done = driver.run();
    loop.run(driver);
    await done;
    expect(sent).toEqual(Array.from({ length: 4000 }, (_, i) => i * 0.025));
    // 100 ms of sends: about one ring per tick, not one per send.
    expect(loop.rings()).toBeLessThanOrEqual(1001);
    expect(schedule.lag().max).toBeLessThanOrEqual(0.1 + 1e-9);
    expect(schedule.lag().p50).toBeGreaterThan(0);
  });
});

describe('the real alarm', () => {
  it('moved later before its time, rings at the new time and never for the old one', async () => {
    const clock = await realClock();
    try {
      const first = clock.now() + 2;
      const second = first + 5;
      let early = false;
      const rang = await new Promise<number>((resolve) => {
        clock.wakeAt(first, () => {
          early = true;
        });
        clock.wakeAt(second, () => resolve(clock.now()));
      });
      expect(early).toBe(false);
      expect(rang).toBeGreaterThanOrEqual(second);
    } finally {
      await clock.close();
    }
  });

  it('moved earlier, wakes the worker and rings at the earlier time', async () => {
    const clock = await realClock();
    try {
      // The first alarm is a minute away: without the restart, the test would time out waiting.
      let far = false;
      clock.wakeAt(clock.now() + 60_000, () => {
        far = true;
      });
      const time = clock.now() + 1;
      const rang = await new Promise<number>((resolve) => clock.wakeAt(time, () => resolve(clock.now())));
      expect(rang).toBeGreaterThanOrEqual(time);
      expect(far).toBe(false);
      expect(clock.rings()).toBeGreaterThanOrEqual(2);
    } finally {
      await clock.close();
    }
  });

  it('keeps ringing through many alarms set one after another, each at or after its time', async () => {
    const clock = await realClock();
    try {
      const schedule = new SendSchedule({ rate: 20_000, total: 400, start: clock.now() + 1 });
      const late: number[] = [];
      await new ScheduleDriver(schedule, clock, (intended) => late.push(clock.now() - intended)).run();
      expect(late).toHaveLength(400);
      expect(Math.min(...late)).toBeGreaterThanOrEqual(0);
    } finally {
      await clock.close();
    }
  });

  it("is not lost when the worker's clock runs ahead of the generator's and it rings early", async () => {
    // The generator's clock 0.5 ms behind the worker's: every ring comes before the alarm is due here. Lost, the
    // alarm would never fire and the test would time out.
    const clock = await realClock({ now: () => performance.timeOrigin + performance.now() - 0.5 });
    try {
      for (let i = 0; i < 5; i++) {
        const time = clock.now() + 1;
        const rang = await new Promise<number>((resolve) => clock.wakeAt(time, () => resolve(clock.now())));
        expect(rang).toBeGreaterThanOrEqual(time);
      }
    } finally {
      await clock.close();
    }
  });

  it.runIf(process.platform === 'linux')(
    'runs on a thread with 1 ns timer slack, so its sleeps end on time',
    async () => {
      const slacks = () =>
        readdirSync('/proc/self/task').map((thread) => {
          try {
            return readFileSync(`/proc/${thread}/timerslack_ns`, 'utf8').trim();
          } catch {
            return 'gone';
          }
        });
      const clock = await realClock();
      try {
        expect(slacks()).toContain('1');
      } finally {
        await clock.close();
      }
    },
  );
});
