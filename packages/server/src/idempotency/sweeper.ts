// Cleans up the answers kept for Idempotency-Keys while the service listens: every minute, a bounded sweep deletes
// keys past their 24 hours and the oldest keys of principals beyond MAX_IDEMPOTENCY_KEYS_PER_PRINCIPAL (the engines
// hold that bound in the write that keeps a key; the sweep trims what an earlier version let grow). Every instance
// sweeps; the deletes are idempotent, so they share the work without coordinating.
import { MAX_IDEMPOTENCY_KEYS_PER_PRINCIPAL } from '@plant-store/core';
import type { FastifyInstance } from 'fastify';
import { IDEMPOTENCY_TTL_MS, type IdempotencyRepository, type Store } from '../store/store.js';

/** How often a sweep runs, and the most keys one sweep deletes (so one sweep is one short write). */
export const SWEEP_EVERY_MS = 60_000;
export const SWEEP_LIMIT = 1000;

/** One sweep: keys that expired before `now`, then the excess of crowded principals; how many were deleted. */
export function sweepIdempotencyKeys(repository: IdempotencyRepository, now = Date.now()): Promise<number> {
  return repository.sweep(now - IDEMPOTENCY_TTL_MS, MAX_IDEMPOTENCY_KEYS_PER_PRINCIPAL, SWEEP_LIMIT);
}

export function registerIdempotencySweeper(app: FastifyInstance, store: Store): void {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  app.addHook('onListen', async () => {
    timer ??= setInterval(() => {
      running = sweepIdempotencyKeys(store.idempotency).catch((error: unknown) => {
        app.log.warn({ err: error }, 'sweeping expired idempotency keys failed; the next sweep tries again');
      });
    }, SWEEP_EVERY_MS);
    timer.unref();
  });
  // Before the store closes (its onClose hook): no sweep is left writing to a closed database.
  app.addHook('preClose', async () => {
    clearInterval(timer);
    await running;
  });
}
