// The memory engine's Idempotency-Keys (the server's memory: store and the SDK's testing kit): the write that keeps a
// principal's key beyond MAX_IDEMPOTENCY_KEYS_PER_PRINCIPAL forgets that principal's oldest key, at once.
import { describe, expect, it } from 'vitest';
import { MAX_IDEMPOTENCY_KEYS_PER_PRINCIPAL } from '../../src/idempotency/idempotency-key.js';
import { openMemoryPlants } from '../../src/store/memory-plants.js';

const answer = { fingerprint: 'f', status: 400, body: '{}' };

describe('the memory engine', () => {
  it('keeps at most the bound of keys per principal, forgetting the oldest as each new one is written', async () => {
    const store = openMemoryPlants();
    const now = Date.now();
    for (let i = 0; i < MAX_IDEMPOTENCY_KEYS_PER_PRINCIPAL; i++) {
      await store.idempotency.remember('grace', `seed-${i}`, answer, now);
    }
    await store.idempotency.remember('henry', 'his-only-key', answer, now);
    for (let i = 0; i < 5; i++) await store.idempotency.remember('grace', `new-${i}`, answer, now);
    for (let i = 5; i < 10; i++) {
      const claim = { key: `new-${i}`, fingerprint: 'f', created: '{}', conflict: '{}', now };
      expect(await store.plants.createOnce('grace', { id: BigInt(i), name: 'Rue' }, claim)).toBe(true);
    }
    // Kept: the ten new keys, seed-10 onwards and henry's; a sweep dated far ahead counts them as it deletes them.
    expect(await store.idempotency.remember('grace', 'new-0', { ...answer, fingerprint: 'g' }, now)).toEqual(answer);
    expect(await store.idempotency.remember('grace', 'seed-10', { ...answer, fingerprint: 'g' }, now)).toEqual(answer);
    expect(await store.idempotency.remember('henry', 'his-only-key', { ...answer, fingerprint: 'g' }, now)).toEqual(
      answer,
    );
    expect(await store.idempotency.sweep(Number.MAX_SAFE_INTEGER, MAX_IDEMPOTENCY_KEYS_PER_PRINCIPAL, 20_000)).toBe(
      MAX_IDEMPOTENCY_KEYS_PER_PRINCIPAL + 1,
    );
  });

  it('counts a key written again (expired, then claimed anew) as the newest', async () => {
    const store = openMemoryPlants();
    const now = Date.now();
    const long = now - 25 * 60 * 60 * 1000;
    await store.idempotency.remember('ivy', 'first', answer, long);
    for (let i = 1; i < MAX_IDEMPOTENCY_KEYS_PER_PRINCIPAL; i++)
      await store.idempotency.remember('ivy', `k-${i}`, answer, now);
    // `first` expired and is claimed again: now the newest, so the next key forgets k-1 rather than it.
    expect(await store.idempotency.remember('ivy', 'first', answer, now)).toBeUndefined();
    await store.idempotency.remember('ivy', 'last', answer, now);
    expect(await store.idempotency.remember('ivy', 'first', { ...answer, fingerprint: 'g' }, now)).toEqual(answer);
    expect(await store.idempotency.remember('ivy', 'k-1', { ...answer, fingerprint: 'g' }, now)).toBeUndefined();
  });
});
