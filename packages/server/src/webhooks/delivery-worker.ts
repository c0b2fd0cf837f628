// The delivery worker every service process runs: it leases due deliveries from the outbox (woken at once by this
// process's commits, and polling every pollMs for other processes' events, retries and CLI replays), sends at most
// `concurrency` at a time, and settles each: delivered, retried later, or failed. A lease that its holder never
// settles (the process was killed) runs out and the delivery is due again: at least once, never lost.
import type { WebhookConfig } from '../config.js';
import type { ClaimedDelivery, DeliveryOutcome, WebhookRepository } from '../store/store.js';
import { nextAttemptAt, retryAfterMs } from './retry-schedule.js';
import { type AttemptResult, sendWebhook } from './send.js';
import { signatureHeader } from './signature.js';

export interface WorkerLog {
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

export interface DeliveryWorker {
  /** Stops leasing, lets in-flight deliveries finish for up to `graceMs`, then abandons the rest (due again at once). */
  stop(graceMs: number): Promise<void>;
}

const PRUNE_EVERY_MS = 60_000;
/**
 * A commit wakes the worker this long after it, and settled attempts are written together this often: under load,
 * one lease and one settling write serve many deliveries (on SQLite, one fsync each instead of one per event), which
 * keeps the worker's share of the database small next to the API's writes.
 */
const BATCH_MS = 20;

/** How long a claimed delivery stays leased: the attempt's deadline twice over, so only a dead holder loses it. */
export function leaseMs(config: WebhookConfig): number {
  return config.timeoutMs * 2 + 1_000;
}

/** What an attempt's result means for the delivery. */
export function outcomeOf(
  result: AttemptResult,
  delivery: ClaimedDelivery,
  config: WebhookConfig,
  now: number,
): DeliveryOutcome {
  let retryable: boolean;
  let status: number | null = null;
  let error: string;
  let after: number | undefined;
  if (result.kind === 'answered') {
    status = result.status;
    if (status >= 200 && status < 300) return { kind: 'delivered', status };
    if (status === 410)
      return { kind: 'failed', status, error: 'HTTP 410', disableSubscription: 'the receiver answered 410 Gone' };
    retryable = status === 408 || status === 429 || status >= 500;
    error = status >= 300 && status < 400 ? `HTTP ${status} (redirects are not followed)` : `HTTP ${status}`;
    after = retryAfterMs(result.retryAfter, now);
  } else {
    retryable = result.retryable;
    error = result.error;
  }
  if (!retryable) return { kind: 'failed', status, error };
  const at = nextAttemptAt({
    failures: delivery.attempts + 1,
    createdAt: delivery.createdAt,
    now,
    retryAfterMs: after,
    firstMs: config.retryFirstMs,
    periodMs: config.retryPeriodMs,
  });
  return at === undefined
    ? { kind: 'failed', status, error: `${error}; retry period over after ${delivery.attempts + 1} attempts` }
    : { kind: 'retry', at, status, error };
}

export function startDeliveryWorker(
  repository: WebhookRepository,
  config: WebhookConfig,
  log: WorkerLog,
): DeliveryWorker {
  const inFlight = new Map<number, { controller: AbortController; done: Promise<void> }>();
  let stopped = false;
  let running = false;
  let again = false;
  let lastPrune = 0;

  async function deliver(delivery: ClaimedDelivery, signal: AbortSignal): Promise<void> {
    const { subscription } = delivery;
    if (!subscription) {
      await repository.settle(
        delivery.id,
        { kind: 'failed', status: null, error: 'the subscription was removed or disabled' },
        Date.now(),
      );
      return;
    }
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'plant-store-webhooks/1',
      'webhook-id': delivery.eventId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatureHeader(subscription.secrets, delivery.eventId, timestamp, delivery.payload),
    };
    const result = await sendWebhook(new URL(subscription.url), delivery.payload, headers, {
      timeoutMs: config.timeoutMs,
      allowPrivate: config.allowPrivate,
      signal,
    });
    const now = Date.now();
    const outcome: DeliveryOutcome = signal.aborted ? { kind: 'released' } : outcomeOf(result, delivery, config, now);
    if (outcome.kind === 'retry' || outcome.kind === 'failed') {
      log.warn(
        {
          delivery: delivery.id,
          subscription: subscription.id,
          attempt: delivery.attempts + 1,
          status: outcome.status,
          error: outcome.error,
        },
        outcome.kind === 'retry' ? 'webhook attempt failed; will retry' : 'webhook delivery failed',
      );
    }
    await settleSoon(delivery.id, outcome, now);
  }

  let settling: {
    id: number;
    outcome: DeliveryOutcome;
    now: number;
    done: () => void;
    failed: (e: unknown) => void;
  }[] = [];
  let settleTimer: NodeJS.Timeout | undefined;
  function settleSoon(id: number, outcome: DeliveryOutcome, now: number): Promise<void> {
    return new Promise((done, failed) => {
      settling.push({ id, outcome, now, done, failed });
      settleTimer ??= setTimeout(() => {
        settleTimer = undefined;
        const batch = settling;
        settling = [];
        // Started in one turn of the event loop, so SQLite's group commit puts them in one transaction.
        for (const item of batch) repository.settle(item.id, item.outcome, item.now).then(item.done, item.failed);
      }, BATCH_MS);
    });
  }

  function launch(delivery: ClaimedDelivery): void {
    const controller = new AbortController();
    const done = deliver(delivery, controller.signal)
      .catch((error: unknown) =>
        // The lease runs out and the delivery is due again: nothing is lost, at worst it is sent twice.
        log.error(
          { err: error, delivery: delivery.id },
          'webhook delivery could not be settled; retried after its lease',
        ),
      )
      .finally(() => {
        inFlight.delete(delivery.id);
        void tick();
      });
    inFlight.set(delivery.id, { controller, done });
  }

  async function tick(): Promise<void> {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        while (!stopped && inFlight.size < config.concurrency) {
          const now = Date.now();
          if (!(await repository.hasDue(now))) break;
          const claimed = await repository.claimDue(now, now + leaseMs(config), config.concurrency - inFlight.size);
          if (claimed.length === 0) break;
          for (const delivery of claimed) launch(delivery);
        }
      } while (again && !stopped);
      if (Date.now() - lastPrune > PRUNE_EVERY_MS) {
        lastPrune = Date.now();
        await repository.prune(lastPrune - config.retentionMs);
      }
    } catch (error) {
      log.warn({ err: error }, 'webhook worker cannot reach the database; trying again at the next poll');
    } finally {
      running = false;
    }
  }

  const timer = setInterval(() => void tick(), config.pollMs);
  timer.unref();
  let wakeTimer: NodeJS.Timeout | undefined;
  const unsubscribe = repository.onQueued(() => {
    wakeTimer ??= setTimeout(() => {
      wakeTimer = undefined;
      void tick();
    }, BATCH_MS);
  });
  void tick();

  return {
    async stop(graceMs) {
      stopped = true;
      clearInterval(timer);
      clearTimeout(wakeTimer);
      unsubscribe();
      const all = () => Promise.allSettled([...inFlight.values()].map((entry) => entry.done));
      let timeout: NodeJS.Timeout | undefined;
      await Promise.race([all(), new Promise((resolve) => (timeout = setTimeout(resolve, graceMs)))]);
      clearTimeout(timeout);
      for (const entry of inFlight.values()) entry.controller.abort();
      await all();
    },
  };
}
