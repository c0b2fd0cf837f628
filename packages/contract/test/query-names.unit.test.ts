// The rule on a request's query parameter names (checkQueryNames): every name declared, none given twice; the first
// unknown name wins over any repeat, and repeats are told in the order the names were first given.
import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '../src/generated/operations.js';
import { checkQueryNames } from '../src/request-rules.js';

const getPlants = OPERATIONS.find((operation) => operation.operationId === 'getPlants')!;

describe('checkQueryNames', () => {
  it('accepts declared names given once each, and no names at all', () => {
    expect(checkQueryNames(getPlants, ['limit'])).toBeUndefined();
    expect(checkQueryNames(getPlants, ['cursor', 'limit'])).toBeUndefined();
    expect(checkQueryNames(getPlants, [])).toBeUndefined();
  });

  it('refuses the first unknown name, even after a repeated one, naming what is accepted', () => {
    expect(checkQueryNames(getPlants, ['limit', 'limit', 'sort', 'page'])?.detail).toMatchObject({
      location: 'query',
      field: 'sort',
      rule: 'unknownField',
    });
  });

  it('tells the repeat of the name given first, with how many times, whichever repeated first', () => {
    const problem = checkQueryNames(getPlants, ['cursor', 'limit', 'limit', 'cursor', 'cursor']);
    expect(problem?.detail).toMatchObject({ location: 'query', field: 'cursor', rule: 'repeated' });
    expect(problem?.message).toContain('3');
    expect(checkQueryNames(getPlants, ['limit', 'cursor', 'limit'])?.detail).toMatchObject({ field: 'limit' });
  });
});
