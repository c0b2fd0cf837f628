// Where cleanup looks for a plant it finds by its run name: under every id a deployment that reads JSON numbers as
// doubles may have made of the id the name carries, sent as it is or in the wrong form `<id>.5`.
import { expect, it } from 'vitest';
import { storedIdCandidates } from '../src/cleanup.js';

/** What a proxy that re-encodes JSON through doubles (test-kit's numbersAsDoubles) sends on for `number`. */
const throughDoubles = (number: string) => BigInt(JSON.stringify(JSON.parse(number)));

it('tries the id as sent first, then the double it rounds to, exact and as its shortest decimal', () => {
  // `<id>.5` rounds to the same double here, and adds no request.
  expect(storedIdCandidates(3163243080784249244n)).toEqual([
    3163243080784249244n,
    3163243080784249344n,
    3163243080784249300n,
  ]);
});

it('finds what `<id>.5` was stored as, also where the id lies halfway between two doubles and rounds the other way', () => {
  // 2^62 + 512 is halfway between the doubles 2^62 and 2^62 + 1024: it rounds to the even one, `<id>.5` above it.
  // So is 2^53 + 1, between 2^53 and 2^53 + 2.
  expect(storedIdCandidates(9007199254740993n)).toEqual([9007199254740993n, 9007199254740992n, 9007199254740994n]);
  for (const id of [(1n << 62n) + 512n, -(1n << 62n) - 512n, 3163243080784249244n, -8358905877134973602n]) {
    const candidates = storedIdCandidates(id);
    expect(candidates).toContain(throughDoubles(String(id)));
    expect(candidates).toContain(throughDoubles(`${id}.5`));
  }
});
