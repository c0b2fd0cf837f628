// Load shedding: while the event loop lags beyond MAX_EVENT_LOOP_DELAY_MS, requests are answered 503 with
// Retry-After at once rather than queued without bound. The lag of start-up and warm-up (compiling the contract,
// first requests) is not overload: shedding starts five seconds after ready. The lag is sampled here with Node's
// event-loop delay histogram alone: @fastify/under-pressure, used before, also called process.memoryUsage() on
// every sample, which throws EMFILE (uv_resident_set_memory) out of a timer, ending the process, whenever the
// descriptors run out.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import { errorBodyText } from './error-handler.js';

/** How long after ready the start-up and warm-up lag is still forgiven. */
const WARM_UP_MS = 5_000;
/** The histogram's sampling resolution (ms); each sample's delay includes it, so it is taken off the mean. */
const RESOLUTION_MS = 10;

export async function registerLoadShedding(app: FastifyInstance, maxEventLoopDelayMs: number): Promise<void> {
  if (maxEventLoopDelayMs <= 0) return;
  let readyAt = Number.POSITIVE_INFINITY;
  app.addHook('onReady', async () => {
    readyAt = Date.now();
  });
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  let delayMs = 0;
  // A sample window with no event-loop sample at all means the loop never turned in it: a delay beyond the bound.
  // A window as long as the bound keeps one pause (a major GC, one slow page) from reading as overload.
  const sampler = setInterval(
    () => {
      const mean = histogram.mean / 1e6 - RESOLUTION_MS;
      delayMs = Number.isNaN(mean) ? Number.POSITIVE_INFINITY : Math.max(0, mean);
      histogram.reset();
    },
    Math.max(100, maxEventLoopDelayMs),
  );
  sampler.unref();
  app.addHook('onClose', async () => {
    clearInterval(sampler);
    histogram.disable();
  });
  app.addHook('onRequest', (_request, reply, done) => {
    if (delayMs <= maxEventLoopDelayMs || Date.now() - readyAt < WARM_UP_MS) return done();
    reply
      .code(503)
      .header('retry-after', '1')
      .type('application/json; charset=utf-8')
      .send(errorBodyText(503, 'the service is overloaded; retry shortly'));
  });
}
