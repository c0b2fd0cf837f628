// The tests' own check of answers against openapi.yaml: its rules for headers the contract declares on an answer.
import { expect, it } from 'vitest';
import { createContractValidator } from '../src/contract-validator.js';

const validator = await createContractValidator();
const page = (headers: Record<string, string>) =>
  validator.check({
    method: 'GET',
    path: '/plants',
    status: 200,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
    body: '[]',
  });
const etag = { etag: 'W/"0-0000000000000000"' };
const budget = { 'x-ratelimit-limit': '1200', 'x-ratelimit-remaining': '1199', 'x-ratelimit-reset': '60' };

it("takes the rate limit's headers all together, or none of them (the limit off)", () => {
  expect(page({ ...etag, ...budget })).toEqual([]);
  expect(page(etag)).toEqual([]);
  expect(page({ ...etag, 'x-ratelimit-remaining': '1199' })).toEqual([
    'getPlants 200: header X-RateLimit-Limit missing',
    'getPlants 200: header X-RateLimit-Reset missing',
  ]);
});

it('names a declared header that is always sent when it is missing', () => {
  expect(page(budget)).toEqual(['getPlants 200: header ETag missing']);
});
