// While the database is unreachable, the delivery worker's polls fail several times a second per process. Its log says
// so once with the cause's stack, then one line per interval with a count, and one line when the database is back:
// never a stack trace per poll. A poll the server's stop overtakes ends before the store closes, and says nothing.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { WebhookRepository } from '../../src/store/store.js';
import { startDeliveryWorker } from '../../src/webhooks/delivery-worker.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('the delivery worker during a database outage', () => {
  it('logs the first failure with its stack, then one summary line per interval, then the recovery', async () => {
    // A fake clock: the polls (every 10 ms) and the summaries (every 300 ms) are counted exactly, whatever the load.
    vi.useFakeTimers();
    let down = true;
    let polls = 0;
    const repository = {
      async hasDue() {
        polls++;
        if (down) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
        return false;
      },
      prune: async () => 0,
      expire: async () => 0,
      onQueued: () => () => {},
    } as unknown as WebhookRepository;
    const lines: { level: string; details: Record<string, unknown>; message: string }[] = [];
    const record = (level: string) => (details: object, message: string) =>
      lines.push({ level, details: details as Record<string, unknown>, message });
    const config = loadConfig({ WEBHOOK_POLL_MS: '10' }).webhooks;
    const worker = startDeliveryWorker(
      repository,
      config,
      { info: record('info'), warn: record('warn'), error: record('error') },
      { outageSummaryMs: 300 },
    );
    try {
      // The poll at start, then one each 10 ms for a second: 101 failed polls.
      await vi.advanceTimersByTimeAsync(1_000);
      expect(polls).toBe(101);
      const withStack = lines.filter((line) => line.details.err !== undefined);
      expect(withStack).toHaveLength(1);
      expect(withStack[0]!.message).toMatch(/cannot reach the database/);
      // One per 300 ms (at 300, 600 and 900), each with the failures since the line before: never one per poll.
      const summaries = lines.filter((line) => line.details.err === undefined);
      expect(summaries.map((line) => line.details.failures)).toEqual([30, 30, 30]);
      expect(summaries.map((line) => line.details.failuresInAll)).toEqual([31, 61, 91]);
      for (const summary of summaries) {
        expect(summary.level).toBe('warn');
        expect(summary.message).toMatch(/still failing, 30 more failures in the last 0 s \(connect ECONNREFUSED/);
      }
      down = false;
      await vi.advanceTimersByTimeAsync(10);
      expect(lines.slice(4)).toEqual([
        {
          level: 'info',
          details: { failuresInAll: 101, sinceMs: 1_010 },
          message: 'webhook worker cannot reach the database: recovered after 101 failures in 1 s',
        },
      ]);
      // Recovered: a quiet log while the polls go on.
      await vi.advanceTimersByTimeAsync(1_000);
      expect(polls).toBe(202);
      expect(lines).toHaveLength(5);
    } finally {
      await worker.stop(0);
    }
  });

  it('says nothing of the database when the server stops it during a poll and then closes the store', async () => {
    let release = () => {};
    let closed = false;
    let polls = 0;
    const repository = {
      hasDue: () => {
        polls++;
        return new Promise<boolean>((resolve) => {
          release = () => resolve(true);
        });
      },
      async claimDue() {
        if (closed) throw new Error('The database connection is not open');
        return [];
      },
      prune: async () => 0,
      expire: async () => 0,
      onQueued: () => () => {},
    } as unknown as WebhookRepository;
    const lines: string[] = [];
    const record = (_details: object, message: string) => lines.push(message);
    const config = loadConfig({ WEBHOOK_POLL_MS: '500' }).webhooks;
    const worker = startDeliveryWorker(repository, config, { info: record, warn: record, error: record });
    expect(polls).toBe(1);
    // The server stops the worker while its poll waits on the database, then closes the store (register.ts: preClose,
    // then the store's onClose): the poll must be over before stop() resolves, and not report the closed store.
    let stoppedAt = 0;
    const stopping = worker.stop(1_000).then(() => {
      stoppedAt = performance.now();
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(stoppedAt).toBe(0);
    release();
    await stopping;
    closed = true;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(lines).toEqual([]);
  });
});
