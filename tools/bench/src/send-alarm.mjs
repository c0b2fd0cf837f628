// The open-loop generator's alarm (send-schedule.ts, realClock): told a time (milliseconds since the epoch, with
// sub-millisecond precision), it sleeps in the kernel until `spinMs` before it, waits out the rest awake, and answers
// with a message, which wakes the generator's event loop at once. Plain JavaScript, so the worker loads without tsx.
import { parentPort, workerData } from 'node:worker_threads';

const cell = new Int32Array(new SharedArrayBuffer(4));
const now = () => performance.timeOrigin + performance.now();
parentPort.on('message', (time) => {
  for (let left = time - now(); left > workerData.spinMs; left = time - now()) {
    Atomics.wait(cell, 0, 0, left - workerData.spinMs);
  }
  while (now() < time) {
    // the last fraction of a millisecond, awake
  }
  parentPort.postMessage(time);
});
