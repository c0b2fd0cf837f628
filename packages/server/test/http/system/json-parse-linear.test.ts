// Issue 10, High 1: exact JSON parsing costs time linear in the body size, for every input. The worst bodies we could
// construct are timed against an ordinary body of the same size (CPU time, the least of many interleaved runs).

import {
  JsonBodyError,
  MAX_EXACT_INTEGERS,
  MAX_JSON_CONTAINERS,
  MAX_JSON_DEPTH,
  parseJsonExact,
} from '@plant-store/contract';
import { describe, expect, it } from 'vitest';

const SIZE = 16_000;

/** A flat (not rope) string, as a request body decoded from a Buffer is. */
const flat = (text: string) => Buffer.from(text).toString();

function repeat(prefix: string, unit: string, suffix: string): string {
  const count = Math.floor((SIZE - prefix.length - suffix.length) / unit.length);
  return flat(prefix + unit.repeat(count) + suffix);
}

// Ordinary: an array of plant-like objects, the shape JSON bodies usually have.
function ordinaryBody(): string {
  const items: string[] = [];
  for (let i = 0; ; i++) {
    const next = `{"id":${1000 + i},"name":"Fern number ${i}","tag":"indoor"}`;
    if (items.join(',').length + next.length + 3 > SIZE) break;
    items.push(next);
  }
  return flat(`[${items.join(',')}]`);
}

const WORST: Record<string, string> = {
  // The body from the attack pass: escaped quotes, then 16 digits (backtracking regex on the old code).
  'escaped quotes then 16 digits': flat(`${'\\"'.repeat((SIZE - 16) / 2)}1234567890123456`),
  'escaped quotes in a string then 16 digits': flat(`{"name":"${'\\"'.repeat((SIZE - 40) / 2)}1234567890123456"}`),
  'unsafe integers': repeat('[', '9007199254740993,', '1]'),
  'as many unsafe integers as allowed, then zeros': flat(
    `[${'9007199254740993,'.repeat(MAX_EXACT_INTEGERS)}${'0,'.repeat((SIZE - 17 * MAX_EXACT_INTEGERS - 3) / 2)}0]`,
  ),
  'long integers': repeat('[', '123456789012345678901234567890,', '1]'),
  zeros: repeat('[', '0,', '0]'),
  'empty objects': repeat('[', '{},', '{}]'),
  'empty arrays': repeat('[', '[],', '[]]'),
  'as many empty objects as allowed, then zeros': flat(
    `[${'{},'.repeat(MAX_JSON_CONTAINERS - 1)}${'0,'.repeat((SIZE - 3 * (MAX_JSON_CONTAINERS - 1) - 3) / 2)}0]`,
  ),
  'empty strings': repeat('[', '"",', '""]'),
  'one-letter keys': repeat('{', '"a":0,', '"b":0}'),
  'escaped keys': repeat('{"\\u0041":0,', '"a":0,', '"b":0}'),
  'unicode escapes': flat(`{"name":"${'\\u00e9'.repeat((SIZE - 20) / 6)}"}`),
  'forbidden-key lookalikes': repeat('[{"constructor_":', '0,', '0}]'),
  'backslash runs': flat(`["${'\\\\'.repeat((SIZE - 10) / 2)}"]`),
  fractions: repeat('[', '1.5,', '1]'),
  'deep nesting': flat(`${'['.repeat(SIZE / 2)}${']'.repeat(SIZE / 2)}`),
  'unterminated string': flat(`["${'a'.repeat(SIZE - 3)}`),
};

function cpuMicros(text: string, iterations: number): number {
  const started = process.cpuUsage();
  for (let i = 0; i < iterations; i++) {
    try {
      parseJsonExact(text);
    } catch {
      // refusals cost time too, and are timed the same way
    }
  }
  const used = process.cpuUsage(started);
  return (used.user + used.system) / iterations;
}

describe('exact JSON parsing is linear in the body size', () => {
  it('costs at most 3x an ordinary body of the same size for the worst bodies we can construct', () => {
    const ordinary = ordinaryBody();
    expect(Math.abs(ordinary.length - SIZE)).toBeLessThan(100);
    for (const body of Object.values(WORST)) expect(Math.abs(body.length - SIZE)).toBeLessThan(100);
    // Warm up, then take the least of many interleaved runs of each: noise from a shared machine only adds time.
    for (const body of [ordinary, ...Object.values(WORST)]) cpuMicros(body, 20);
    const best = new Map<string, number>([['ordinary', Number.POSITIVE_INFINITY]]);
    for (let round = 0; round < 25; round++) {
      best.set('ordinary', Math.min(best.get('ordinary')!, cpuMicros(ordinary, 10)));
      for (const [name, body] of Object.entries(WORST)) {
        best.set(name, Math.min(best.get(name) ?? Number.POSITIVE_INFINITY, cpuMicros(body, 10)));
      }
    }
    const base = best.get('ordinary')!;
    const ratios = Object.fromEntries(
      Object.keys(WORST).map((name) => [name, Math.round((best.get(name)! / base) * 100) / 100]),
    );
    console.info(`ordinary ${SIZE}-byte body: ${base.toFixed(1)} us; worst-case ratios:`, ratios);
    for (const [name, ratio] of Object.entries(ratios)) expect(ratio, name).toBeLessThanOrEqual(3);
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
});
