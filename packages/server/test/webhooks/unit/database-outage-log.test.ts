// While the database is unreachable, the delivery worker's polls fail several times a second per process. Its log says
// so once with the cause's stack, then one line per interval with a count, and one line when the database is back:
// never a stack trace per poll.
import { waitFor } from '@plant-store/test-kit/wait';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import type { WebhookRepository } from '../../../src/store/store.js';
import { startDeliveryWorker } from '../../../src/webhooks/delivery-worker.js';

describe('the delivery worker during a database outage', () => {
  it('logs the first failure with its stack, then one summary line per interval, then the recovery', async () => {
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
      const started = Date.now();
      await waitFor('many failed polls', () => polls > 20 && Date.now() - started >= 1_000, { timeoutMs: 10_000 });
      const elapsed = Date.now() - started;
      const withStack = lines.filter((line) => line.details.err !== undefined);
      expect(withStack).toHaveLength(1);
      expect(withStack[0]!.message).toMatch(/cannot reach the database/);
      const summaries = lines.filter((line) => line.details.err === undefined);
      // About one per 300 ms, each with the count since the last line: never one per poll.
      expect(summaries.length).toBeGreaterThanOrEqual(1);
      expect(summaries.length).toBeLessThanOrEqual(Math.ceil(elapsed / 300) + 1);
      expect(summaries.length).toBeLessThan(polls / 3);
      for (const summary of summaries) {
        expect(summary.message).toMatch(/still failing, \d+ more failures in the last \d+ s \(connect ECONNREFUSED/);
        expect(summary.details.failures).toBeGreaterThan(0);
      }
      const counted = summaries.reduce((sum, line) => sum + (line.details.failures as number), 1);
      expect(counted).toBeLessThanOrEqual(polls);
      down = false;
      await waitFor('the recovery line', () => lines.some((line) => line.level === 'info'));
      expect(lines.filter((line) => line.level === 'info')[0]!.message).toMatch(/recovered after \d+ failures/);
      const before = lines.length;
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(lines).toHaveLength(before);
    } finally {
      await worker.stop(0);
    }
  });
});
