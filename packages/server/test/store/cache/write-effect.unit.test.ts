// A write's effect, declared once: what a create or a delete of one plant does to a cached page, and the change log's
// codes for the effects.
import { pageOf } from '@plant-store/test-kit/page-text';
import { describe, expect, it } from 'vitest';
import { EFFECT_CODES, effectOfCode, pageChangedBy } from '../../../src/store/cache/write-effect.js';
import type { PlantPage } from '../../../src/store/store.js';

describe('pageChangedBy', () => {
  // A full page of plants 10..19 (limit 10), starting after cursor 5, with more plants after it.
  const full: PlantPage = pageOf('[]', { lastId: 19n, hasMore: true, version: '1' });
  const last: PlantPage = pageOf('[]', { lastId: 19n, hasMore: false, version: '1' });
  const empty: PlantPage = pageOf('[]', { lastId: undefined, hasMore: false, version: '1' });

  it('leaves a page alone when the plant is before its range, or beyond a full page that knows more follow', () => {
    expect(pageChangedBy('create', 3n, full, 5n)).toBe(false);
    expect(pageChangedBy('create', 5n, full, 5n)).toBe(false);
    expect(pageChangedBy('create', 20n, full, 5n)).toBe(false);
    expect(pageChangedBy('create', 1_000_000n, full, undefined)).toBe(false);
    expect(pageChangedBy('delete', 3n, full, 5n)).toBe(false);
    // Nothing follows the last page, so no plant beyond it can be deleted.
    expect(pageChangedBy('delete', 25n, last, 5n)).toBe(false);
  });

  it('counts a plant inside the range, one beyond the last page, and a delete that may end hasMore', () => {
    expect(pageChangedBy('create', 12n, full, 5n)).toBe(true);
    expect(pageChangedBy('create', 6n, full, undefined)).toBe(true);
    expect(pageChangedBy('create', 25n, last, 5n)).toBe(true); // hasMore becomes true
    expect(pageChangedBy('create', 7n, empty, 5n)).toBe(true);
    expect(pageChangedBy('delete', 19n, full, 5n)).toBe(true);
    expect(pageChangedBy('delete', 25n, full, 5n)).toBe(true); // maybe the only plant after the page
  });
});

describe('the change log codes', () => {
  it('keep the codes the log has stored since it was made (1 a create, 0 a delete), one per effect, and read each back', () => {
    expect(EFFECT_CODES).toMatchObject({ create: 1, delete: 0 });
    expect(new Set(Object.values(EFFECT_CODES)).size).toBe(Object.keys(EFFECT_CODES).length);
    for (const [effect, code] of Object.entries(EFFECT_CODES)) expect(effectOfCode(code)).toBe(effect);
    expect(effectOfCode(1n)).toBe('create');
  });

  it('refuses a code no effect has', () => {
    expect(() => effectOfCode(7)).toThrow('unknown change log code 7');
  });
});
