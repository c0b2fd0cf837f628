// The open-loop generator's alarm (send-schedule.ts, realClock), a worker thread that talks to the generator through
// shared memory only, with no message per alarm. The generator writes the alarm's time (milliseconds since the epoch,
// sub-millisecond); this thread sleeps in the kernel (Atomics.wait) until then and bumps RING, which resolves the
// generator's Atomics.waitAsync and wakes its event loop. Moving the alarm later (the generator sent early, from its
// own loop, or set the next alarm) is a plain write that this thread reads when it wakes: only the first alarm, or one
// moved earlier, bumps SEQ and wakes it. After a ring it rests at least `tickMs`, or until the next alarm can be due
// (the generator says when), before it reads the time again: so one wake-up per ring at moderate rates, and at high
// rates one ring per tick, every send due by then leaving in that turn. It waits out the last `spinMs`
// awake only for an alarm at least spinMs / spinShare after its last ring, so the spin stays a small share of the
// core: at high rates it never spins. Plain JavaScript, so the worker loads without tsx.
import { readlinkSync, writeFileSync } from 'node:fs';
import { workerData } from 'node:worker_threads';

const { buffer, spinMs, spinShare, tickMs } = workerData;
// Words: SEQ (bumped on a restart; -1 stops the thread), RING (bumped on each ring); then the alarm's time and the
// earliest the next alarm can be (0: unknown). An aligned Float64 store is one instruction on x64, so a read sees
// either the old or the new value; the generator writes the time first, this thread reads `after` first.
const SEQ = 0;
const RING = 1;
const words = new Int32Array(buffer, 0, 2);
const times = new Float64Array(buffer, 8, 2);
const now = () => performance.timeOrigin + performance.now();

// Linux lets a sleep end up to the thread's timer slack (50 us by default) late, to batch wake-ups; this thread's
// sleeps are the schedule, so it asks for 1 ns (its own /proc entry: allowed without privileges). Elsewhere, or where
// /proc is not there, the default stands and its lag shows it.
try {
  const thread = readlinkSync('/proc/thread-self').split('/').at(-1);
  writeFileSync(`/proc/${thread}/timerslack_ns`, '1');
} catch {
  // not Linux, or no /proc: the default slack
}

let seq = 0;
let lastRing = 0;
// Idle until the first alarm.
Atomics.wait(words, SEQ, seq);
for (;;) {
  seq = Atomics.load(words, SEQ);
  if (seq < 0) break;
  const after = times[1];
  const time = times[0];
  const spin = time - lastRing >= spinMs / spinShare ? spinMs : 0;
  const left = time - now();
  if (left > spin) {
    // Wakes at the time, or early on a restart: either way it reads the time again.
    Atomics.wait(words, SEQ, seq, left - spin);
    continue;
  }
  while (now() < time) {
    // the last fraction of a millisecond, awake (only for an alarm 1 ms or more after the last ring)
  }
  // Moved later meanwhile, or restarted: read it again.
  if (times[0] > time || Atomics.load(words, SEQ) !== seq) continue;
  lastRing = now();
  Atomics.add(words, RING, 1);
  Atomics.notify(words, RING);
  // A tick's rest, or until the spin before the next alarm could start if that is later; then every tick until the
  // generator has set its next alarm (or restarts or stops this thread).
  Atomics.wait(words, SEQ, seq, Math.max(tickMs, after - spinMs - now()));
  while (times[0] === time && Atomics.load(words, SEQ) === seq) Atomics.wait(words, SEQ, seq, tickMs);
}
