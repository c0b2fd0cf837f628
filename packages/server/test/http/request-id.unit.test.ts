import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createIdMaker, freshRequestId, requestId } from '../../src/http/request-id.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const withHeader = (value?: string) =>
  ({ headers: value === undefined ? {} : { 'x-request-id': value } }) as IncomingMessage;
const headOf = (id: string) => id.slice(0, 28);

describe('request ids', () => {
  it('makes ids in a version-4 UUID form, each one new', () => {
    const ids = Array.from({ length: 20_000 }, () => freshRequestId());
    for (const id of ids) expect(id).toMatch(UUID_V4);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('draws a new random part once a counter span is used up', () => {
    const next = createIdMaker(3);
    const first = [next(), next(), next()];
    expect(new Set(first.map(headOf)).size).toBe(1);
    const fourth = next();
    expect(fourth).toMatch(UUID_V4);
    expect(headOf(fourth)).not.toBe(headOf(first[0]!));
    expect(new Set([...first, fourth]).size).toBe(4);
  });

  it("two makers (two processes) do not share their ids' random part", () => {
    expect(headOf(createIdMaker()())).not.toBe(headOf(createIdMaker()()));
  });

  it("keeps a caller's sane id and replaces anything else", () => {
    expect(requestId(withHeader('trace-1:a.b_c'))).toBe('trace-1:a.b_c');
    for (const insane of ['', 'has space', 'x'.repeat(129), 'quote"d'])
      expect(requestId(withHeader(insane))).toMatch(UUID_V4);
    expect(requestId(withHeader())).toMatch(UUID_V4);
  });
});
