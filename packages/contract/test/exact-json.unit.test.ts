// parseJsonExact costs work linear in the body's length, for every input: the worst bodies we could construct (issue
// 10, High 1: a backtracking regex once made one of them quadratic) are parsed at three sizes while every character
// the parse reads is counted (the string methods it calls, what JSON.parse and Object.keys are given; no regex may
// run, as its backtracking cannot be counted), and the count per character stays under one bound at every size.
// Counted, not timed: the answer is the same on a loaded machine; what a body costs in time is the bench's to say.
// Then what it must still read exactly and refuse.
import {
  JsonBodyError,
  MAX_EXACT_INTEGERS,
  MAX_JSON_CONTAINERS,
  MAX_JSON_DEPTH,
  parseJsonExact,
} from '@plant-store/contract';
import { describe, expect, it } from 'vitest';

/** A flat (not rope) string, as a request body decoded from a Buffer is. */
const flat = (text: string) => Buffer.from(text).toString();

/** The bodies of about `size` characters: an ordinary one, then the worst we can construct. */
function bodies(size: number): Record<string, string> {
  const repeat = (prefix: string, unit: string, suffix: string) =>
    flat(prefix + unit.repeat(Math.floor((size - prefix.length - suffix.length) / unit.length)) + suffix);
  const items: string[] = [];
  for (let i = 0; ; i++) {
    const next = `{"id":${1000 + i},"name":"Fern number ${i}","tag":"indoor"}`;
    if (items.join(',').length + next.length + 3 > size) break;
    items.push(next);
  }
  return {
    // Ordinary: an array of plant-like objects, the shape JSON bodies usually have.
    ordinary: flat(`[${items.join(',')}]`),
    // The body from the attack pass: escaped quotes, then 16 digits (backtracking regex on the old code).
    'escaped quotes then 16 digits': flat(`${'\\"'.repeat((size - 16) / 2)}1234567890123456`),
    'escaped quotes in a string then 16 digits': flat(`{"name":"${'\\"'.repeat((size - 40) / 2)}1234567890123456"}`),
    'unsafe integers': repeat('[', '9007199254740993,', '1]'),
    'as many unsafe integers as allowed, then zeros': flat(
      `[${'9007199254740993,'.repeat(MAX_EXACT_INTEGERS)}${'0,'.repeat((size - 17 * MAX_EXACT_INTEGERS - 3) / 2)}0]`,
    ),
    'long integers': repeat('[', '123456789012345678901234567890,', '1]'),
    zeros: repeat('[', '0,', '0]'),
    'empty objects': repeat('[', '{},', '{}]'),
    'empty arrays': repeat('[', '[],', '[]]'),
    'as many empty objects as allowed, then zeros': flat(
      `[${'{},'.repeat(MAX_JSON_CONTAINERS - 1)}${'0,'.repeat((size - 3 * (MAX_JSON_CONTAINERS - 1) - 3) / 2)}0]`,
    ),
    'empty strings': repeat('[', '"",', '""]'),
    'one-letter keys': repeat('{', '"a":0,', '"b":0}'),
    'distinct keys': flat(
      `{${Array.from({ length: Math.floor((size - 20) / 12) }, (_, n) => `"k${String(n).padStart(6, '0')}":0`).join(',')}}`,
    ),
    'a repeated key at the end': flat(
      `{${Array.from({ length: Math.floor((size - 30) / 12) }, (_, n) => `"k${String(n).padStart(6, '0')}":0`).join(',')},"k000000":1}`,
    ),
    'escaped keys': repeat('{"\\u0041":0,', '"a":0,', '"b":0}'),
    'unicode escapes': flat(`{"name":"${'\\u00e9'.repeat((size - 20) / 6)}"}`),
    'forbidden-key lookalikes': repeat('[{"constructor_":', '0,', '0}]'),
    'backslash runs': flat(`["${'\\\\'.repeat((size - 10) / 2)}"]`),
    fractions: repeat('[', '1.5,', '1]'),
    'deep nesting': flat(`${'['.repeat(size / 2)}${']'.repeat(size / 2)}`),
    'unterminated string': flat(`["${'a'.repeat(size - 3)}`),
  };
}

type Counted = [target: object, name: string, cost: (self: unknown, args: unknown[], result: unknown) => number];
const COUNTED: Counted[] = [
  [String.prototype, 'charCodeAt', () => 1],
  [
    String.prototype,
    'indexOf',
    (self, args, result) => {
      const from = Number(args[1] ?? 0);
      return (result === -1 ? (self as string).length : (result as number) + 1) - from;
    },
  ],
  [String.prototype, 'slice', (_self, _args, result) => (result as string).length],
  [String.prototype, 'includes', (self) => (self as string).length],
  [String.prototype, 'startsWith', (_self, args) => (args[0] as string).length],
  [String.prototype, 'isWellFormed', (self) => (self as string).length],
  [JSON, 'parse', (_self, args) => (args[0] as string).length],
  [Object, 'keys', (_self, _args, result) => (result as unknown[]).length],
  // Every regex match, test, replace and split goes through exec once it is replaced.
  [RegExp.prototype, 'exec', () => Number.POSITIVE_INFINITY],
];

/** The characters (and keys) parseJsonExact reads for `text`, a refusal included. */
function reads(text: string): number {
  let count = 0;
  const originals = COUNTED.map(
    ([target, name]) => (target as Record<string, unknown>)[name] as (...args: unknown[]) => unknown,
  );
  COUNTED.forEach(([target, name, cost], index) => {
    const original = originals[index]!;
    (target as Record<string, unknown>)[name] = function (this: unknown, ...args: unknown[]) {
      const result = original.apply(this, args);
      count += cost(this, args, result);
      return result;
    };
  });
  try {
    parseJsonExact(text);
  } catch (error) {
    if (!(error instanceof JsonBodyError)) throw error;
  } finally {
    COUNTED.forEach(([target, name], index) => {
      (target as Record<string, unknown>)[name] = originals[index];
    });
  }
  return count;
}

describe('exact JSON parsing is linear in the body size', () => {
  it('reads each character at most 8 times, at 4, 16 and 64 KB alike, for the worst bodies', () => {
    // An ordinary body reads about 6 per character: the scan, JSON.parse, and a look for escapes and the three
    // forbidden keys. A parse that is quadratic anywhere reads more per character the longer the body.
    for (const size of [4_000, 16_000, 64_000]) {
      for (const [name, body] of Object.entries(bodies(size))) {
        expect(Math.abs(body.length - size), name).toBeLessThan(100);
        expect(reads(body) / body.length, `${name} at ${size} characters`).toBeLessThanOrEqual(8);
      }
    }
  });

  it('still reads integers exactly and refuses what it must', () => {
    expect(parseJsonExact('{"id":9007199254740993}')).toEqual({ id: 9007199254740993n });
    expect(parseJsonExact('{"id":-9223372036854775808}')).toEqual({ id: -9223372036854775808n });
    expect(parseJsonExact('{"id":9007199254740991,"name":"1234567890123456789"}')).toEqual({
      id: 9007199254740991,
      name: '1234567890123456789',
    });
    expect(parseJsonExact('{"a":[1.5,-2e-3]}')).toEqual({ a: [1.5, -0.002] });
    expect(() => parseJsonExact('{"__proto__":{"x":1}}')).toThrow(JsonBodyError);
    expect(() => parseJsonExact('{"\\u0063onstructor":1}')).toThrow(JsonBodyError);
    expect(() => parseJsonExact(`${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}`)).toThrow(
      /nested deeper/,
    );
    expect(() => parseJsonExact('["\\"1234567890123456')).toThrow(JsonBodyError);
    expect(() => parseJsonExact(`[${'9007199254740993,'.repeat(MAX_EXACT_INTEGERS)}1]`)).not.toThrow();
    expect(() => parseJsonExact(`[${'9007199254740993,'.repeat(MAX_EXACT_INTEGERS + 1)}1]`)).toThrow(/more than/);
    expect(() => parseJsonExact(`[${'{},'.repeat(MAX_JSON_CONTAINERS - 2)}{}]`)).not.toThrow();
    expect(() => parseJsonExact(`[${'{},'.repeat(MAX_JSON_CONTAINERS - 1)}{}]`)).toThrow(/more than 1024 objects/);
    // A whole number written with a fraction or an exponent is not an integer literal (issue 10, item 8).
    for (const text of ['1.0', '1e2', '5.0000000000000001', '9007199254740990.9', '0.0', '1E+2', '120e-1']) {
      expect(() => parseJsonExact(`{"id":${text}}`), text).toThrow(/fraction or an exponent/);
    }
    expect(parseJsonExact('{"a":[1.5,12e-1,1.25e1,-0.5]}')).toEqual({ a: [1.5, 1.2, 12.5, -0.5] });
    // A string starting with the marker character cannot smuggle a bigint in.
    expect(() => parseJsonExact('["\\udfff12345678901234567", 12345678901234567890]')).toThrow(/lone/);
    expect(parseJsonExact('["~12345678901234567", 12345678901234567890]')).toEqual([
      '~12345678901234567',
      12345678901234567890n,
    ]);
  });

  it('refuses a member name repeated in one object, naming it, however the name is spelled', () => {
    // JSON.parse keeps the last value; a gateway that reads the first would check another id than the one stored.
    expect(() => parseJsonExact('{"id":5,"name":"Fern","id":9007199254740995}')).toThrow(
      'the member "id" appears more than once in one object',
    );
    expect(() => parseJsonExact('{"id":5, "\\u0069d" :6}')).toThrow(/the member "id" appears more than once/);
    expect(() => parseJsonExact('[{"a":{"b":1,"b":2}}]')).toThrow(/the member "b" appears/);
    expect(() => parseJsonExact(`{"${'x'.repeat(100)}":1,"${'x'.repeat(100)}":2}`)).toThrow(/\[cut: 100 characters\]/);
    // The same name in different objects, or as a value, is no repeat.
    expect(parseJsonExact('[{"id":1},{"id":2,"tag":"id"},{"a":{"id":3},"id":4}]')).toEqual([
      { id: 1 },
      { id: 2, tag: 'id' },
      { a: { id: 3 }, id: 4 },
    ]);
    expect(parseJsonExact('{"id":9007199254740993,"n":{"id":9007199254740995}}')).toEqual({
      id: 9007199254740993n,
      n: { id: 9007199254740995n },
    });
  });
});
