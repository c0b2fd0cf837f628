// `serve --workers N` without Redis: each worker allows its share of the rate limits; a crashed worker is replaced
// after a delay that doubles with each crash in a row.
import { describe, expect, it } from 'vitest';
import { perWorker } from '../../src/cli/serve.js';
import { RESTART_MAX_MS, restartDelayMs } from '../../src/cluster/supervise-workers.js';
import { loadConfig } from '../../src/config.js';

describe('rate limits per worker', () => {
  it('divides RATE_LIMIT_MAX and RATE_LIMIT_ANONYMOUS_MAX among the workers', () => {
    const config = loadConfig({ RATE_LIMIT_MAX: '20', RATE_LIMIT_ANONYMOUS_MAX: '9' });
    expect(perWorker(config, 2).rateLimit).toMatchObject({ max: 10, anonymousMax: 4 });
    expect(perWorker(config, 3).rateLimit).toMatchObject({ max: 6, anonymousMax: 3 });
    expect(Object.isFrozen(perWorker(config, 2))).toBe(true);
  });

  it('keeps at least one request per worker, and no anonymous limit where there was none', () => {
    const config = loadConfig({ RATE_LIMIT_MAX: '3', RATE_LIMIT_ANONYMOUS_MAX: '0' });
    expect(perWorker(config, 8).rateLimit).toMatchObject({ max: 1, anonymousMax: 0 });
  });

  it('leaves the limits whole when Redis shares the counts, or when rate limiting is off', () => {
    const shared = loadConfig({ RATE_LIMIT_MAX: '20', REDIS_URL: 'redis://127.0.0.1:6379' });
    expect(perWorker(shared, 4)).toBe(shared);
    const off = loadConfig({ RATE_LIMIT_MAX: '0', RATE_LIMIT_ANONYMOUS_MAX: '0' });
    expect(perWorker(off, 4)).toBe(off);
    const anonymousOnly = loadConfig({ RATE_LIMIT_MAX: '0', RATE_LIMIT_ANONYMOUS_MAX: '8' });
    expect(perWorker(anonymousOnly, 4).rateLimit).toMatchObject({ max: 0, anonymousMax: 2 });
  });
});

describe('restart backoff', () => {
  it('doubles from 1 s with each crash in a row, up to 30 s', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 40].map(restartDelayMs)).toEqual([
      1_000,
      2_000,
      4_000,
      8_000,
      16_000,
      RESTART_MAX_MS,
      RESTART_MAX_MS,
      RESTART_MAX_MS,
    ]);
  });
});
