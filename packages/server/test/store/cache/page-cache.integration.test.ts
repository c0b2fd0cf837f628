// The page cache is bounded in bytes (PAGE_CACHE_BYTES). Clients choose `limit` and forge cursors freely, so a walk
// over many distinct pages of large plants must leave the store holding at most the budget, not every page it built.
// Measured directly: the heap the walk leaves behind once garbage is collected (a page is a two-byte JSON string,
// which is what the cache counts), rather than the process's RSS, which garbage not yet returned blurs by tens of MiB.
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { pageText } from '@plant-store/test-kit/page-text';
import { useTestStore } from '@plant-store/test-kit/store';
import { describe, expect, it } from 'vitest';

const BUDGET = 8 * 1024 * 1024;
const PLANTS = 1_000;
const WALK = 150;
/** What besides the cached pages the walk may leave: cache keys and entries, statement caches, the allocator's slack. */
const SLACK = 2 * 1024 * 1024;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** The heap in use once everything unreachable is collected (twice: weak references and finalizers let go late). */
function retainedBytes(): number {
  gc();
  gc();
  return getHeapStatistics().used_heap_size;
}

const testStore = useTestStore('sqlite', { store: { pageCacheBytes: BUDGET } });

describe('the page cache', () => {
  it('holds at most PAGE_CACHE_BYTES through a walk of forged cursors over large pages', async () => {
    const { store } = testStore;
    // 200 emoji per name: each page of up to 1000 plants is about 0.8 MB of JSON as a JavaScript string.
    const name = '🌿'.repeat(100) + '🌵'.repeat(100);
    await Promise.all(Array.from({ length: PLANTS }, (_, i) => store.plants.create('walker', { id: BigInt(i), name })));
    // Warm up the code paths on another owner's small pages, then measure from an empty cache.
    await store.plants.create('warm', { id: 1n, name: 'Fern' });
    for (let i = 0; i < 10; i++) await store.plants.list('warm', { limit: 10 - i, after: BigInt(-1 - i) });
    const before = retainedBytes();
    let built = 0;
    // Every forged cursor names another page: ~0.8 MB each, ~125 MB if all were kept.
    for (let i = 0; i < WALK; i++) {
      const after = BigInt(-1000 + (i % 2 === 0 ? i : -i));
      const page = await store.plants.list('walker', { limit: 1000 - (i % 7), after });
      built += 2 * pageText(page).length;
    }
    const growth = retainedBytes() - before;
    const held = store.cacheStats?.();
    console.info(
      `page cache: walked ${(built / 2 ** 20).toFixed(0)} MiB of pages, cache counts ${((held?.bytes ?? 0) / 2 ** 20).toFixed(1)} MiB ` +
        `in ${held?.entries} pages, heap grew ${(growth / 2 ** 20).toFixed(1)} MiB, budget ${BUDGET / 2 ** 20} MiB`,
    );
    // The walk built far more than the budget, and the cache is full: the bound is what keeps the heap down.
    expect(built).toBeGreaterThan(10 * BUDGET);
    expect(held?.bytes).toBeLessThanOrEqual(BUDGET);
    expect(held?.bytes).toBeGreaterThan(BUDGET / 2);
    expect(growth).toBeLessThan(BUDGET + SLACK);
  }, 60_000);
});
