// A measured delete run never outlasts the plants it deletes (tools/bench/src/delete-run.ts).
import { describe, expect, it } from 'vitest';
import { deleteSeconds } from '../src/delete-run.js';

describe('deleteSeconds', () => {
  it('keeps the usual length while the plants last it', () => {
    expect(deleteSeconds(3, 50_000, 10_000)).toBe(3);
  });

  it('shortens the run to whole seconds the plants last, with a tenth to spare', () => {
    // The Express peer: 9,261 plants made, deleting 5,781 a second: 2 s would run out after 1.6 s.
    expect(deleteSeconds(2, 9_261, 5_781)).toBe(1);
    expect(deleteSeconds(3, 15_000, 5_781)).toBe(2);
  });

  it('never goes below one second, and keeps the usual length without a rate', () => {
    expect(deleteSeconds(3, 100, 5_000)).toBe(1);
    expect(deleteSeconds(3, 100, Number.NaN)).toBe(3);
  });
});
