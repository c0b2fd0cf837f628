// The `response-headers-conformance` rules, on the contract's own declared headers: values their schemas allow, and
// ETags a client can send back.
import { describe, expect, it } from 'vitest';
import { loadConformanceContract } from '../src/contract.js';
import { responseHeaderProblems } from '../src/response-headers.js';

const contract = loadConformanceContract();
const response = (operationId: string, status: string) =>
  contract.operations.find((operation) => operation.operationId === operationId)!.responses[status]!;

describe('response-headers-conformance', () => {
  it('passes the headers the service sends, and says nothing about an answer that carries none of them', () => {
    expect(responseHeaderProblems(response('getPlants', '200'), { etag: 'W/"2-36e66867aa7d3e9a"' })).toEqual([]);
    expect(responseHeaderProblems(response('getPlants', '200'), { etag: '"strong"' })).toEqual([]);
    expect(responseHeaderProblems(response('createPlant', '200'), { 'idempotent-replayed': 'true' })).toEqual([]);
    expect(responseHeaderProblems(response('createPlant', '409'), { 'retry-after': '1' })).toEqual([]);
    expect(responseHeaderProblems(response('createPlant', '200'), { 'content-type': 'application/json' })).toBe(
      undefined,
    );
  });

  it("checks the rate limit's headers on every answer a request past the token and scope checks can get", () => {
    const budget = { 'x-ratelimit-limit': '1200', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '60' };
    const answers = {
      getPlants: ['200', '304', '400', '429'],
      createPlant: ['200', '400', '409', '413', '415', '422', '429'],
      deletePlant: ['204', '400', '404', '429'],
    };
    for (const [operationId, statuses] of Object.entries(answers)) {
      for (const status of statuses) expect(responseHeaderProblems(response(operationId, status), budget)).toEqual([]);
    }
    expect(
      responseHeaderProblems(response('getPlants', '200'), {
        'x-ratelimit-limit': '0',
        'x-ratelimit-remaining': '-1',
        'x-ratelimit-reset': 'soon',
      }),
    ).toEqual([
      'x-ratelimit-limit "0" is below 1',
      'x-ratelimit-remaining "-1" is below 0',
      'x-ratelimit-reset "soon" is not an integer',
    ]);
  });

  it('names a value its schema refuses and an ETag that is no entity tag', () => {
    expect(responseHeaderProblems(response('getPlants', '200'), { etag: 'W/abc' })).toEqual([
      'ETag "W/abc" is not an entity tag ("..." or W/"...")',
    ]);
    expect(responseHeaderProblems(response('createPlant', '200'), { 'idempotent-replayed': 'yes' })).toEqual([
      'idempotent-replayed "yes" is none of "true"',
    ]);
    expect(responseHeaderProblems(response('createPlant', '409'), { 'retry-after': 'soon' })).toEqual([
      'retry-after "soon" is not an integer',
    ]);
    expect(responseHeaderProblems(response('createPlant', '409'), { 'retry-after': '-1' })).toEqual([
      'retry-after "-1" is below 0',
    ]);
  });
});
