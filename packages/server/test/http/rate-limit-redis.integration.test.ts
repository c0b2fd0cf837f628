// The rate limits' Redis client on its own: an unreachable Redis is retried quietly, never printed by ioredis as a
// raw "[ioredis] Unhandled error event" stack, even before the shared counter listens to the client.
import { sparePort } from '@plant-store/test-kit/spare-port';
import { waitFor } from '@plant-store/test-kit/wait';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRateLimitRedis } from '../../src/http/rate-limit.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the rate limits’ Redis client', () => {
  it('prints no raw error stack while Redis refuses connections', async () => {
    const printed = vi.spyOn(console, 'error');
    const redis = await createRateLimitRedis(`redis://127.0.0.1:${await sparePort()}`);
    try {
      // A refused connection is an error event, then a reconnect: twice, so errors after the first are seen too.
      let reconnects = 0;
      redis.on('reconnecting', () => reconnects++);
      await waitFor('two refused connections', () => reconnects >= 2, { timeoutMs: 10_000 });
    } finally {
      redis.disconnect();
    }
    expect(printed.mock.calls.map((call) => String(call[0]))).not.toContainEqual(expect.stringContaining('[ioredis]'));
  });
});
