// The delivery worker every service process runs: it leases due deliveries from the outbox (woken at once by this
// process's commits, and polling every pollMs for other processes' events, retries and CLI replays), sends at most
// `concurrency` at a time, and settles each: delivered, retried later, or failed. A lease that its holder never
// settles (the process was killed) runs out and the delivery is due again: at least once, never lost.
// Each subscription is a queue of its own, as Svix runs endpoints: the store leases at most `perSubscription` of its
// deliveries at once across every instance, and a receiver that keeps failing or hanging opens the subscription's
// circuit breaker (no attempts for a while, then one probe at a time), so it never holds the others' deliveries up.
import type { WebhookConfig } from '../config.js';
import { FailureRun } from '../failure-run.js';
import type { CircuitUpdate, ClaimedDelivery, DeliveryOutcome, WebhookRepository } from '../store/store.js';
import { nextAttemptAt, retryAfterMs } from './retry-schedule.js';
import { type AttemptResult, sendWebhook } from './send.js';
import { signatureHeader } from './signature.js';

export interface WorkerLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

/** What the worker reports as it goes (metrics). */
export interface WorkerObserver {
  /** One attempt's outcome; `retry` is true when the delivery had been attempted before. */
  attempted(subscriptionId: string, outcome: DeliveryOutcome['kind'], retry: boolean): void;
  /** Deliveries in flight in this process now. */
  inFlight(count: number): void;
}

/** Sends one signed attempt (in-process by default; the signing and sending can run elsewhere). */
export type SendAttempt = (
  delivery: ClaimedDelivery & { subscription: NonNullable<ClaimedDelivery['subscription']> },
) => Promise<AttemptResult>;

export interface WorkerOptions {
  observer?: WorkerObserver;
  send?: SendAttempt;
  /** While the database stays unreachable, one summary line per this many ms (the first failure is logged at once). */
  outageSummaryMs?: number;
}

export interface DeliveryWorker {
  /** Stops leasing, lets in-flight deliveries finish for up to `graceMs`, then abandons the rest (due again at once). */
  stop(graceMs: number): Promise<void>;
}

const PRUNE_EVERY_MS = 60_000;
const OUTAGE_SUMMARY_MS = 60_000;
/** The longest a circuit stays open, unless WEBHOOK_CIRCUIT_OPEN_MS asks for longer. */
const MAX_CIRCUIT_OPEN_MS = 600_000;
/**
 * A commit wakes the worker this long after it, and settled attempts are written together this often (or at once,
 * when every attempt in flight has finished): under load, one lease and one settling write serve many deliveries (on
 * SQLite, one fsync each instead of one per event), which keeps the worker's share of the database small next to the
 * API's writes.
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

/**
 * What an attempt's result says about the receiver: a timeout, a connection error, 408, 429 or 5xx is a failure that
 * counts towards opening the circuit; any other answer closes it; a refusal before any connection says nothing.
 */
export function circuitUpdateOf(result: AttemptResult, config: WebhookConfig): CircuitUpdate | undefined {
  const failed: CircuitUpdate = {
    kind: 'failed',
    failures: config.circuitFailures,
    openMs: config.circuitOpenMs,
    maxOpenMs: Math.max(config.circuitOpenMs, MAX_CIRCUIT_OPEN_MS),
  };
  if (result.kind === 'error') return result.retryable ? failed : undefined;
  const { status } = result;
  return status === 408 || status === 429 || status >= 500 ? failed : { kind: 'answered' };
}

/** Signs and sends one attempt in this process. */
export function sendAttemptHere(config: WebhookConfig, signal: AbortSignal): SendAttempt {
  return (delivery) => {
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'plant-store-webhooks/1',
      'webhook-id': delivery.eventId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatureHeader(
        delivery.subscription.secrets,
        delivery.eventId,
        timestamp,
        delivery.payload,
      ),
    };
    return sendWebhook(new URL(delivery.subscription.url), delivery.payload, headers, {
      timeoutMs: config.timeoutMs,
      allowPrivate: config.allowPrivate,
      signal,
    });
  };
}

export function startDeliveryWorker(
  repository: WebhookRepository,
  config: WebhookConfig,
  log: WorkerLog,
  options: WorkerOptions = {},
): DeliveryWorker {
  const inFlight = new Map<number, { controller: AbortController; done: Promise<void> }>();
  const observer = options.observer;
  const outage = new FailureRun(
    log,
    'webhook worker cannot reach the database',
    options.outageSummaryMs ?? OUTAGE_SUMMARY_MS,
    'trying again at each poll',
  );
  let stopped = false;
  let running = false;
  let again = false;
  /** The poll in progress: stop() waits for it, so it never reaches a store the server closes next. */
  let ticking: Promise<void> = Promise.resolve();
  let lastPrune = 0;

  async function deliver(delivery: ClaimedDelivery, controller: AbortController): Promise<void> {
    const { subscription } = delivery;
    if (!subscription) {
      await repository.settle(
        delivery.id,
        { kind: 'failed', status: null, error: 'the subscription was removed or disabled' },
        Date.now(),
      );
      return;
    }
    const send = options.send ?? sendAttemptHere(config, controller.signal);
    const result = await send({ ...delivery, subscription });
    const now = Date.now();
    const outcome: DeliveryOutcome = controller.signal.aborted
      ? { kind: 'released' }
      : outcomeOf(result, delivery, config, now);
    observer?.attempted(subscription.id, outcome.kind, delivery.attempts > 0);
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
    const circuit = outcome.kind === 'released' ? undefined : circuitUpdateOf(result, config);
    await settleSoon(delivery.id, outcome, now, circuit);
  }

  let settling: {
    id: number;
    outcome: DeliveryOutcome;
    now: number;
    circuit: CircuitUpdate | undefined;
    done: () => void;
    failed: (e: unknown) => void;
  }[] = [];
  let settleTimer: NodeJS.Timeout | undefined;
  function settleBatch(): void {
    clearTimeout(settleTimer);
    settleTimer = undefined;
    const batch = settling;
    settling = [];
    // Started in one turn of the event loop, so SQLite's group commit puts them in one transaction.
    for (const item of batch)
      repository.settle(item.id, item.outcome, item.now, item.circuit).then(item.done, item.failed);
  }
  function settleSoon(id: number, outcome: DeliveryOutcome, now: number, circuit?: CircuitUpdate): Promise<void> {
    return new Promise((done, failed) => {
      settling.push({ id, outcome, now, circuit, done, failed });
      // Every attempt in flight has finished: none can join the batch, and waiting would only hold the slots (and a
      // busy subscription's next deliveries) for nothing. Otherwise the first settlement schedules the batch.
      if (settling.length >= inFlight.size) settleBatch();
      else settleTimer ??= setTimeout(settleBatch, BATCH_MS);
    });
  }

  function launch(delivery: ClaimedDelivery): void {
    const controller = new AbortController();
    const done = deliver(delivery, controller)
      .catch((error: unknown) =>
        // The lease runs out and the delivery is due again: nothing is lost, at worst it is sent twice.
        log.error(
          { err: error, delivery: delivery.id },
          'webhook delivery could not be settled; retried after its lease',
        ),
      )
      .finally(() => {
        inFlight.delete(delivery.id);
        observer?.inFlight(inFlight.size);
        void tick();
      });
    inFlight.set(delivery.id, { controller, done });
    observer?.inFlight(inFlight.size);
  }

  function tick(): Promise<void> {
    if (stopped) return Promise.resolve();
    if (running) {
      again = true;
      return ticking;
    }
    running = true;
    ticking = poll();
    return ticking;
  }

  async function poll(): Promise<void> {
    try {
      do {
        again = false;
        while (!stopped && inFlight.size < config.concurrency) {
          const now = Date.now();
          if (!(await repository.hasDue(now, config.perSubscription)) || stopped) break;
          const room = config.concurrency - inFlight.size;
          const claimed = await repository.claimDue(now, now + leaseMs(config), room, config.perSubscription);
          for (const delivery of claimed) launch(delivery);
          // Fewer than asked: the rest is not due, or waits for room in its subscription's queue.
          if (claimed.length < room) break;
        }
      } while (again && !stopped);
      if (!stopped && Date.now() - lastPrune > PRUNE_EVERY_MS) {
        lastPrune = Date.now();
        await repository.prune(lastPrune - config.retentionMs);
        await repository.expire(lastPrune - config.retryPeriodMs, lastPrune);
      }
      outage.succeeded();
    } catch (error) {
      // A poll that stop() overtook may fail on the way out; that is no outage.
      if (!stopped) outage.failed(error);
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
      await ticking;
      const all = () => Promise.allSettled([...inFlight.values()].map((entry) => entry.done));
      let timeout: NodeJS.Timeout | undefined;
      await Promise.race([all(), new Promise((resolve) => (timeout = setTimeout(resolve, graceMs)))]);
      clearTimeout(timeout);
      for (const entry of inFlight.values()) entry.controller.abort();
      await all();
    },
  };
}
