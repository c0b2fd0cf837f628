// RFC 8288 Link header parsing: only the rel="next" target counts, however the header is written.
import { describe, expect, it } from 'vitest';
import { nextLink } from '../src/link.js';

const base = 'http://plants.test/api/plants?limit=2';

describe('nextLink', () => {
  it.each([
    ['</plants?limit=2&cursor=a>; rel="next"', 'http://plants.test/plants?limit=2&cursor=a'],
    ['<http://other.test/plants?cursor=b>; rel=next', 'http://other.test/plants?cursor=b'],
    ['<?cursor=c>; REL="Next"', 'http://plants.test/api/plants?cursor=c'],
    ['</p?cursor=d>; title="page, two"; rel="prev next"', 'http://plants.test/p?cursor=d'],
    ['</first>; rel="first", </p?cursor=e>;rel="next"', 'http://plants.test/p?cursor=e'],
    ['</p?cursor=f>; rel="next",</p?cursor=g>; rel="next"', 'http://plants.test/p?cursor=f'],
  ])('finds the next page in %s', (header, expected) => {
    expect(nextLink(header, base)?.href).toBe(expected);
  });

  it.each([null, '', '</p?cursor=a>; rel="prev"', '</p?cursor=a>; rel="nextpage"', 'garbage', '</p>; title="next"'])(
    'finds none in %o',
    (header) => {
      expect(nextLink(header, base)).toBeUndefined();
    },
  );
});
