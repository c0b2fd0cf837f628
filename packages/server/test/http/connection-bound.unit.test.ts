// The API's connection bound: the soft descriptor limit less a reserve (a tenth, at least 64) for everything else.
import { expect, it } from 'vitest';
import { connectionBound, openFilesLimit } from '../../src/http/connection-bound.js';

const limits = (soft: string, hard: string) =>
  `Limit                     Soft Limit           Hard Limit           Units     \nMax open files            ${soft.padEnd(20)} ${hard.padEnd(20)} files     \n`;

it('reads the soft limit on open files from /proc/self/limits', () => {
  expect(openFilesLimit(limits('1024', '524288'))).toBe(1024);
  expect(openFilesLimit(limits('unlimited', 'unlimited'))).toBeUndefined();
  expect(openFilesLimit('')).toBeUndefined();
});

it('keeps a reserve of a tenth of the limit, at least 64', () => {
  expect(connectionBound(200)).toBe(136);
  expect(connectionBound(1024)).toBe(921);
  expect(connectionBound(65536)).toBe(58982);
  expect(connectionBound(50)).toBe(1);
  expect(connectionBound(undefined)).toBeUndefined();
});
