// The byte-bounded LRU behind the page cache (both stores) and the PostgreSQL token cache.

import { pageOf } from '@plant-store/test-kit/page-text';
import { describe, expect, it } from 'vitest';
import { PageCache } from '../../../src/store/cache/page-cache.js';

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

  it('knows the oldest version among an owner’s pages, by number, and forgets those a replayed change altered', () => {
    const cache = new PageCache();
    const at = (version: string) => pageOf('[]', { lastId: undefined, hasMore: false, version });
    expect(cache.oldestVersion('owner')).toBeUndefined();
    cache.set('owner', 'a', at('10'), undefined);
    cache.set('owner', 'b', at('9'), undefined);
    cache.set('owner', 'c', at('11'), undefined);
    cache.set('other', 'a', at('2'), undefined);
    expect(cache.oldestVersion('owner')).toBe(9n);
    cache.replay('owner', [{ effect: 'create', id: 1n, version: 10n }], 10n); // a page without plants: any create alters it
    expect(cache.get('owner', 'b')).toBeUndefined();
    expect(cache.oldestVersion('owner')).toBe(10n);
    expect(cache.get('owner', 'c')).toBeDefined();
    expect(cache.oldestVersion('other')).toBe(2n);
  });

  it('answers the oldest version from the one a write or catch-up brought the owner’s pages to, lowered by an older page cached since', () => {
    const cache = new PageCache();
    const at = (version: string) => pageOf('[]', { lastId: undefined, hasMore: false, version });
    cache.set('owner', 'a', pageOf('[]', { lastId: 10n, hasMore: true, version: '5' }));
    cache.set('owner', 'b', at('7'));
    cache.afterWrite('owner', '5', '6', 'create', [15n]); // a is kept at 6; b, newer, is left as it is
    expect(cache.oldestVersion('owner')).toBe(6n);
    cache.replay('owner', [{ effect: 'create', id: 1n, version: 7n }], 7n);
    expect(cache.get('owner', 'a')).toBeUndefined();
    expect(cache.oldestVersion('owner')).toBe(7n);
    // A page older than that, cached since (read before a write it missed), is the oldest again, and is forgotten.
    cache.set('owner', 'c', at('3'));
    expect(cache.oldestVersion('owner')).toBe(3n);
    cache.replay('owner', [{ effect: 'create', id: 1n, version: 7n }], 7n); // the changes 4..6 are not listed
    expect(cache.get('owner', 'c')).toBeUndefined();
    expect(cache.get('owner', 'b')?.version).toBe('7');
    // An owner whose pages are all gone keeps nothing of them: a page cached later is its own oldest.
    cache.forget('owner');
    cache.set('owner', 'd', at('2'));
    expect(cache.oldestVersion('owner')).toBe(2n);
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

  it('evicts in the order cached, giving an entry used since it was last passed over one more turn (CLOCK)', () => {
    const cache = new PageCache<{ size: number }>(4 * 1300, (value) => value.size);
    for (const key of ['a', 'b', 'c', 'd']) cache.set('owner', key, { size: 1000 });
    cache.get('owner', 'a');
    cache.get('owner', 'c');
    // a and c were used: b goes first, then d; a and c are passed over once, and then go in their new order.
    cache.set('owner', 'e', { size: 1000 });
    expect(['a', 'b', 'c', 'd'].map((key) => cache.has('owner', key))).toEqual([true, false, true, true]);
    cache.set('owner', 'f', { size: 1000 });
    expect(['a', 'c', 'd', 'e'].map((key) => cache.has('owner', key))).toEqual([true, true, false, true]);
    cache.set('owner', 'g', { size: 1000 });
    expect(['a', 'c', 'e', 'f'].map((key) => cache.has('owner', key))).toEqual([false, true, true, true]);
    expect(cache.stats()).toMatchObject({ hits: 2, misses: 0, entries: 4 });
  });

  it('tells whether a key holds a value without counting a hit or a miss, nor making it the most recently used', () => {
    const cache = new PageCache<{ size: number }>(3000, (value) => value.size);
    cache.set('a', 'old', { size: 1000 });
    cache.set('a', 'new', { size: 1000 });
    expect([cache.has('a', 'old'), cache.has('a', 'gone'), cache.has('b', 'old')]).toEqual([true, false, false]);
    expect(cache.stats()).toMatchObject({ hits: 0, misses: 0 });
    cache.set('a', 'next', { size: 1000 });
    expect(cache.has('a', 'old')).toBe(false);
  });
});

describe('PageCache after writes', () => {
  it('lets afterWrite drop only the pages a change may alter, and give the others the new version', () => {
    const cache = new PageCache();
    cache.set('ann', '10:', pageOf('[1]', { lastId: 10n, hasMore: true, version: '1' }));
    cache.set('ann', '10:10', pageOf('[2]', { lastId: 20n, hasMore: false, version: '1' }), 10n);
    cache.set('ben', '10:', pageOf('[3]', { lastId: 10n, hasMore: false, version: '1' }));
    cache.afterWrite('ann', '1', '2', 'create', [15n]);
    expect(cache.get('ann', '10:')).toBeDefined();
    expect(cache.get('ann', '10:')?.version).toBe('2');
    expect(cache.get('ann', '10:10')).toBeUndefined();
    expect(cache.get('ben', '10:')?.version).toBe('1');
  });

  it('hands out a kept page with the version writes moved it to, as a new object, leaving one handed out before as it was', () => {
    const cache = new PageCache();
    cache.set('ann', '10:', pageOf('[1]', { lastId: 10n, hasMore: true, version: '1' }));
    const before = cache.get('ann', '10:')!;
    cache.afterWrite('ann', '1', '2', 'create', [15n]);
    cache.afterWrite('ann', '2', '3', 'create', [15n]);
    // A request that got the page before the writes still holds version 1 (its ETag and its freshness check).
    expect(before.version).toBe('1');
    const after = cache.get('ann', '10:')!;
    expect(after.version).toBe('3');
    expect(after).not.toBe(before);
    expect(after.body).toBe(before.body);
    expect(cache.get('ann', '10:')).toBe(after); // no new object until a write moves it on again
    expect(cache.oldestVersion('ann')).toBe(3n);
    // What `usable` is shown is the current version, so a reader asking for version 3 or newer gets the page.
    cache.afterWrite('ann', '3', '4', 'create', [15n]);
    expect(cache.get('ann', '10:', (page) => page.version === '4')?.version).toBe('4');
    cache.replay('ann', [{ effect: 'create', id: 15n, version: 6n }], 6n); // the change to 5 is not listed
    expect(cache.get('ann', '10:')).toBeUndefined();
  });

  it('replays an owner’s changes in one pass: a page none of the changes since its version alters moves to the last', () => {
    const cache = new PageCache();
    const page = (lastId: bigint, hasMore: boolean, version: string) => pageOf('[1]', { lastId, hasMore, version });
    cache.set('ann', 'second page', page(29n, true, '3'), 20n);
    cache.set('ann', 'second page at 4', page(29n, true, '4'), 20n);
    cache.set('ann', 'last page', page(10n, false, '3'));
    cache.set('ann', 'holds 15', page(20n, true, '3'), 10n);
    cache.set('ann', 'newer', page(10n, false, '9'));
    cache.set('ann', 'before the log', page(29n, true, '1'), 20n);
    cache.set('ben', 'other owner', page(10n, false, '3'));
    cache.replay(
      'ann',
      [
        { effect: 'create', id: 30n, version: 4n },
        { effect: 'create', id: 31n, version: 5n },
        { effect: 'delete', id: 15n, version: 6n },
      ],
      6n,
    );
    expect(cache.get('ann', 'second page')?.version).toBe('6'); // creates beyond a full page, a delete before it
    expect(cache.get('ann', 'second page at 4')?.version).toBe('6');
    expect(cache.get('ann', 'last page')).toBeUndefined(); // a create beyond the last page shows on it
    expect(cache.get('ann', 'holds 15')).toBeUndefined(); // the delete of a plant on the page
    expect(cache.get('ann', 'newer')?.version).toBe('9'); // read after the changes: left as it is
    expect(cache.get('ann', 'before the log')).toBeUndefined(); // its change to 2 is not listed
    expect(cache.get('ben', 'other owner')?.version).toBe('3');
    expect(cache.oldestVersion('ann')).toBe(6n);
  });

  it('replays no page across a gap in the changes, nor past the last one listed when the version is newer', () => {
    const cache = new PageCache();
    cache.set('ann', 'a', pageOf('[1]', { lastId: 10n, hasMore: true, version: '3' }));
    cache.set('ann', 'b', pageOf('[1]', { lastId: 10n, hasMore: true, version: '5' }));
    cache.set('ann', 'c', pageOf('[1]', { lastId: 10n, hasMore: true, version: '8' }));
    cache.replay('ann', [], 3n);
    expect(cache.get('ann', 'a')?.version).toBe('3');
    cache.replay(
      'ann',
      [
        { effect: 'create', id: 30n, version: 4n },
        { effect: 'create', id: 31n, version: 6n }, // the change to 5 is missing
        { effect: 'create', id: 32n, version: 7n },
      ],
      7n,
    );
    expect(cache.get('ann', 'a')).toBeUndefined();
    expect(cache.get('ann', 'b')?.version).toBe('7'); // its changes, 6 and 7, are all there
    // A list that stops short of the version (a writer that logs no change made 12): a page after the gap in it is
    // not carried either.
    cache.set('ann', 'e', pageOf('[1]', { lastId: 10n, hasMore: true, version: '9' }));
    cache.replay(
      'ann',
      [
        { effect: 'create', id: 34n, version: 8n },
        { effect: 'create', id: 35n, version: 10n },
        { effect: 'create', id: 36n, version: 11n },
      ],
      12n,
    );
    expect(cache.get('ann', 'e')).toBeUndefined();
    // A version moved by a writer that logged no change (an older release of the service on the same file).
    cache.set('ann', 'd', pageOf('[1]', { lastId: 10n, hasMore: true, version: '9' }));
    cache.replay('ann', [{ effect: 'create', id: 33n, version: 8n }], 9n);
    expect(cache.get('ann', 'b')).toBeUndefined();
    expect(cache.get('ann', 'c')).toBeUndefined();
    expect(cache.get('ann', 'd')?.version).toBe('9');
  });

  it('forgets a page that missed a write between its version and the one afterWrite starts from', () => {
    // Another instance's write moved ann from 1 to 2 (it alters the page); this instance's own, 2 to 3, does not.
    const cache = new PageCache();
    cache.set('ann', '10:', pageOf('[1]', { lastId: 10n, hasMore: true, version: '1' }));
    cache.set('ann', '10:5', pageOf('[2]', { lastId: 10n, hasMore: true, version: '4' }), 5n);
    cache.afterWrite('ann', '2', '3', 'create', [15n]);
    expect(cache.get('ann', '10:')).toBeUndefined();
    expect(cache.get('ann', '10:5')?.version).toBe('4');
  });
});
