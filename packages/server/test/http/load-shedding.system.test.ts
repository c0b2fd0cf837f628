// Under event-loop overload the service answers 503 with Retry-After at once (load shedding with
// an event-loop delay sampler) instead of queueing without bound, and serves again once the loop keeps up.
import { createTestApp, type TestApp } from '@plant-store/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: { MAX_EVENT_LOOP_DELAY_MS: '200' } });
  await t.app.ready();
  // Shedding starts five seconds after ready (start-up itself blocks the loop).
  await new Promise((resolve) => setTimeout(resolve, 5_200));
});
afterAll(async () => {
  await t?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('load shedding', () => {
  it('answers 503 with Retry-After while the event loop lags, and 200 again after', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    // Overload: the loop is blocked for 600 ms, as a burst of CPU-heavy requests would; the sampler (every 100 ms)
    // reads the lag as soon as the loop is free, and requests in the next sample interval are shed.
    let shed = await t.app.inject({ method: 'GET', url: '/healthz' });
    for (let attempt = 0; attempt < 5 && shed.statusCode !== 503; attempt++) {
      const until = Date.now() + 600;
      while (Date.now() < until) {
        // busy
      }
      await sleep(15);
      shed = await t.app.inject({ method: 'GET', url: '/plants' });
    }
    expect(shed.statusCode).toBe(503);
    expect(shed.headers['retry-after']).toBe('1');
    expect(shed.json()).toEqual({ error: 503, message: expect.stringContaining('overloaded') });
    // Once the loop keeps up, requests are served again.
    await sleep(500);
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });
});
