// The byte-bounded LRU behind the page cache (both stores) and the PostgreSQL token cache.
import { describe, expect, it } from 'vitest';
import { PageCache } from '../../../src/store/page-cache.js';

describe('PageCache', () => {
  it('keeps any kind of value within its byte bound, by the size it is given, dropping the least recently used', () => {
    const cache = new PageCache<{ size: number }>(4096, (value) => value.size);
    for (let i = 0; i < 100; i++) {
      cache.set('owner', `k${i}`, { size: 1000 });
      expect(cache.bytes).toBeLessThanOrEqual(4096);
    }
    expect(cache.get('owner', 'k99')).toEqual({ size: 1000 });
    expect(cache.get('owner', 'k0')).toBeUndefined();
    // A hit is a use: k97 survives the next insert, k98 (now the oldest) does not.
    cache.get('owner', 'k97');
    cache.set('owner', 'k100', { size: 1000 });
    expect(cache.get('owner', 'k97')).toBeDefined();
    expect(cache.get('owner', 'k98')).toBeUndefined();
  });

  it('refuses a value larger than the whole bound, and forgets an owner’s entries on a write', () => {
    const cache = new PageCache<{ size: number }>(4096, (value) => value.size);
    cache.set('a', 'huge', { size: 5000 });
    expect(cache.bytes).toBe(0);
    cache.set('a', 'x', { size: 10 });
    cache.set('b', 'x', { size: 10 });
    cache.forget('a');
    expect(cache.get('a', 'x')).toBeUndefined();
    expect(cache.get('b', 'x')).toEqual({ size: 10 });
  });
});
