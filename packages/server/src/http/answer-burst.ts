// The answers of one turn of the event loop leave together, at its end: each answer sent is held (its onSend hook's
// callback) until the turn's check phase (setImmediate), then written, rather than written one at a time between the
// turn's other requests. Written one at a time, each answer woke the client's reader on its own, and on loopback (as
// behind a proxy on the same host) the sender's CPU pays for the receiver's side of the delivery: on the 2-core
// machine, one principal's cached page cost 63-69 us of server CPU per request written one at a time and 38-40 us in
// a burst (14,500-15,800 -> 24,900-26,000 req/s; the mixed workload 8,200-9,100 -> 13,300-14,100), side by side in
// one run (docs/performance.md). PostgreSQL's answers already left in bursts, after the turn's read-barrier check, at
// 37-41 us. Corking each socket instead does not do it: Node's response end() uncorks its socket fully. An answer
// given in a later turn (a create, once its batch is durable) leaves at the end of that turn. Under light load (one
// request a turn) the hold is the rest of the turn: nothing. Requests that wait for something queued in the turn's
// check phase (the SQLite store's look for the turn's requests, app.ts) have the release queued behind it (`expect`),
// so their answers, given in the check phase, still leave in this turn rather than the next.
import type { FastifyInstance } from 'fastify';

export interface AnswerBurst {
  /** Queues the turn's release now, behind what is already queued for the turn's check phase. */
  expect(): void;
}

export function registerAnswerBurst(app: FastifyInstance): AnswerBurst {
  let held: (() => void)[] = [];
  const release = () => {
    const answers = held;
    held = [];
    // One answer that fails to leave must not hold back the others.
    for (const send of answers) {
      try {
        send();
      } catch (error) {
        app.log.error({ err: error }, 'an answer could not be sent');
      }
    }
  };
  // A release queued by a first answer, and one queued by expect(): the latter may be due behind the former in the
  // same check phase, and an answer held while it is still to come leaves with it.
  let queued = false;
  let expected = false;
  app.addHook('onSend', (_request, _reply, _payload, done) => {
    if (!queued && !expected) {
      queued = true;
      setImmediate(() => {
        queued = false;
        release();
      });
    }
    held.push(done as () => void);
  });
  return {
    expect() {
      if (expected) return;
      expected = true;
      setImmediate(() => {
        expected = false;
        release();
      });
    },
  };
}
