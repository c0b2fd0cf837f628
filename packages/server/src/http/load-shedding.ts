// Load shedding: while the event loop lags beyond MAX_EVENT_LOOP_DELAY_MS, requests are answered 503 with
// Retry-After at once (@fastify/under-pressure) rather than queued without bound. The lag of start-up and warm-up
// (compiling the contract, first requests) is not overload: shedding starts five seconds after ready.
import underPressure from '@fastify/under-pressure';
import type { FastifyInstance } from 'fastify';
import { errorBodyText } from './error-handler.js';

/** How long after ready the start-up and warm-up lag is still forgiven. */
const WARM_UP_MS = 5_000;

export async function registerLoadShedding(app: FastifyInstance, maxEventLoopDelayMs: number): Promise<void> {
  if (maxEventLoopDelayMs <= 0) return;
  let readyAt = Number.POSITIVE_INFINITY;
  app.addHook('onReady', async () => {
    readyAt = Date.now();
  });
  await app.register(underPressure, {
    maxEventLoopDelay: maxEventLoopDelayMs,
    // under-pressure reads a sample window with no event-loop sample at all as an infinite delay, so one pause longer
    // than the window (a major GC, one slow page) would shed. A window as long as the bound makes "no sample" mean
    // a delay beyond the bound, which is overload.
    sampleInterval: Math.max(100, maxEventLoopDelayMs),
    pressureHandler: (_request, reply) => {
      if (Date.now() - readyAt < WARM_UP_MS) return undefined;
      reply.code(503).header('retry-after', '1').type('application/json; charset=utf-8');
      return errorBodyText(503, 'the service is overloaded; retry shortly') as never;
    },
  });
}
