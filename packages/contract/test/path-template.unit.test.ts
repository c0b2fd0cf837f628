// The contract's path templates as the server's 404/405 answer and the testing kit match request paths against them.
import { describe, expect, it } from 'vitest';
import { pathPattern } from '../src/path-template.js';

describe('pathPattern', () => {
  it('matches one segment per parameter, and names the parameters in order', () => {
    const { pattern, names } = pathPattern('/plants/{id}');
    expect(names).toEqual(['id']);
    expect(pattern.exec('/plants/12')?.[1]).toBe('12');
    for (const path of ['/plants', '/plants/', '/plants/12/x', '/plants/12/', '/x/plants/12']) {
      expect(pattern.test(path), path).toBe(false);
    }
  });

  it('takes the rest of a template literally', () => {
    const { pattern, names } = pathPattern('/a.b/{x}+{y}');
    expect(names).toEqual(['x', 'y']);
    expect(pattern.test('/a.b/1+2')).toBe(true);
    expect(pattern.test('/aXb/1+2')).toBe(false);
    expect(pattern.test('/a.b/1+')).toBe(false);
  });
});
