import { describe, expect, it } from 'vitest';
import { ownBytes } from '../../../src/store/cache/own-bytes.js';

describe('ownBytes', () => {
  it('gives a string its UTF-8 bytes in a buffer of exactly their length', () => {
    const pooled = Buffer.from('[{"name":"Fern"}]');
    expect(pooled.buffer.byteLength).toBeGreaterThan(pooled.byteLength); // what it replaces: a slice of the pool
    const bytes = ownBytes('[{"name":"Fern","tag":"grün"}]');
    expect(bytes.toString('utf8')).toBe('[{"name":"Fern","tag":"grün"}]');
    expect(bytes.byteLength).toBe(Buffer.byteLength('[{"name":"Fern","tag":"grün"}]'));
    expect(bytes.buffer.byteLength).toBe(bytes.byteLength);
    expect(ownBytes('').byteLength).toBe(0);
  });

  it('copies bytes, a slice of a larger buffer included, into memory shared with nothing', () => {
    const shared = Buffer.alloc(1024, 9);
    const slice = shared.subarray(100, 132);
    const bytes = ownBytes(slice);
    expect(bytes.equals(slice)).toBe(true);
    expect(bytes.buffer.byteLength).toBe(32);
    shared.fill(0);
    expect(bytes.every((byte) => byte === 9)).toBe(true);
  });
});
