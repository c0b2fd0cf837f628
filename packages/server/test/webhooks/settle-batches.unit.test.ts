// The delivery worker writes settled attempts together: a batch waits up to 20 ms for attempts still in flight, but
// not once every attempt in flight has finished (nothing can join it then, and a busy subscription's next
// deliveries wait for those slots). Fake timers: a settlement seen without advancing them did not wait.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { ClaimedDelivery, WebhookRepository } from '../../src/store/store.js';
import { startDeliveryWorker } from '../../src/webhooks/delivery-worker.js';
import type { AttemptResult } from '../../src/webhooks/send.js';

const delivery = (id: number): ClaimedDelivery => ({
  id,
  eventId: `evt_${id}`,
  payload: `{"id":${id},"name":"fern"}`,
  attempts: 0,
  createdAt: 0,
  subscription: { id: 'sub_1', url: 'https://receiver.example/hook', secrets: ['whsec_test'] },
});

/** Two deliveries claimed at once, each answered when the test says so; the settled ids, batch by batch. */
function harness() {
  const answers = new Map<number, (result: AttemptResult) => void>();
  const settled: number[] = [];
  let claimed = false;
  const repository = {
    hasDue: async () => !claimed,
    claimDue: async () => {
      claimed = true;
      return [delivery(1), delivery(2)];
    },
    settle: async (id: number) => {
      settled.push(id);
    },
    prune: async () => 0,
    expire: async () => 0,
    onQueued: () => () => {},
  } as unknown as WebhookRepository;
  const silent = { info() {}, warn() {}, error() {} };
  const worker = startDeliveryWorker(repository, loadConfig({}).webhooks, silent, {
    send: (attempt) => new Promise((resolve) => answers.set(attempt.id, resolve)),
  });
  const answer = (id: number) => answers.get(id)!({ kind: 'answered', status: 204, retryAfter: undefined });
  return { worker, answers, settled, answer };
}

describe('the delivery worker settling attempts', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('writes the batch at once when the last attempt in flight finishes, without waiting for its timer', async () => {
    const { worker, answers, settled, answer } = harness();
    await vi.advanceTimersByTimeAsync(0);
    expect([...answers.keys()]).toEqual([1, 2]);
    answer(1);
    await vi.advanceTimersByTimeAsync(0);
    expect(settled).toEqual([]);
    answer(2);
    await vi.advanceTimersByTimeAsync(0);
    expect(settled).toEqual([1, 2]);
    await worker.stop(0);
  });

  it('waits up to 20 ms for attempts still in flight, then writes what has finished', async () => {
    const { worker, settled, answer } = harness();
    await vi.advanceTimersByTimeAsync(0);
    answer(1);
    await vi.advanceTimersByTimeAsync(19);
    expect(settled).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(settled).toEqual([1]);
    answer(2);
    await vi.advanceTimersByTimeAsync(0);
    expect(settled).toEqual([1, 2]);
    await worker.stop(0);
  });
});
