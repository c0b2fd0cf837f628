// Running out of file descriptors never ends the process through load shedding: its sampler reads only the
// event-loop delay, never process.memoryUsage(), which throws EMFILE (uv_resident_set_memory) when no descriptor is
// left; @fastify/under-pressure called it from a timer, so the throw was uncaught.
import { createTestApp, type TestApp } from '@plant-store/test-kit';
import { afterEach, describe, expect, it } from 'vitest';

let t: TestApp | undefined;
const memoryUsage = process.memoryUsage;
afterEach(async () => {
  process.memoryUsage = memoryUsage;
  await t?.close();
  t = undefined;
});

describe('load shedding when descriptors run out', () => {
  it('never calls process.memoryUsage, so an EMFILE there cannot end the process', async () => {
    let calls = 0;
    process.memoryUsage = Object.assign(
      () => {
        calls += 1;
        throw Object.assign(new Error('EMFILE: too many open files, uv_resident_set_memory'), { code: 'EMFILE' });
      },
      { rss: () => 0 },
    ) as unknown as typeof process.memoryUsage;
    t = await createTestApp({ env: { MAX_EVENT_LOOP_DELAY_MS: '100' } });
    await t.app.ready();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(calls).toBe(0);
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });
});
