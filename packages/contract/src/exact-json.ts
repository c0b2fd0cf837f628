// Parses JSON exactly, the one way the service, the SDK's testing kit and its webhook check do: integers beyond 2^53
// become bigint instead of being rounded, keys that could pollute prototypes are refused, and so is a member name
// repeated in one object (JSON.parse keeps the last value, a gateway in front may read the first). JSON.parse alone would
// turn 9007199254740993 into 9007199254740992. The cost is linear in the text's length whatever it holds: one
// single-pass scan (no regex over the text) finds the number literals that need care and the nesting depth, then
// V8's own JSON.parse, then, only when the scan found something, one walk over the parsed values. No Node imports:
// the SDK bundles this for browsers and edge runtimes (Web Crypto for the random marker).

import { callerText } from './caller-text.js';

export class JsonBodyError extends Error {
  override name = 'JsonBodyError';
}

/** Deeper bodies are refused: the contract's bodies are flat, and deep nesting costs JSON.parse more per byte. */
export const MAX_JSON_DEPTH = 32;

/**
 * At most this many integers beyond 2^53 in one body (the contract's bodies hold one id): each costs a rewrite and a
 * bigint, so without a bound a body of nothing else would cost several times an ordinary one.
 */
export const MAX_EXACT_INTEGERS = 16;

/**
 * At most this many objects and arrays in one body (the contract's bodies hold one object): JSON.parse spends more
 * per byte building many small containers (a body of nothing but `{},` costs about 3x an ordinary one), so beyond
 * this the body is refused while it is scanned, before anything is built.
 */
export const MAX_JSON_CONTAINERS = 1024;

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const LOWER_E = 0x65;
const UPPER_E = 0x45;
const PLUS = 0x2b;
const COLON = 0x3a;

const MAX_SAFE_DIGITS = String(Number.MAX_SAFE_INTEGER);

/**
 * The closing quote of the string opening at `start`: the next quote not escaped by an odd run of backslashes, or -1.
 * Each character is looked at a bounded number of times (the backward count only covers the run since the last quote).
 */
function stringEnd(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  while (end !== -1) {
    let slashes = 0;
    while (text.charCodeAt(end - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) break;
    end = text.indexOf('"', end + 1);
  }
  return end;
}

/** The first position at or after `at` that is not JSON whitespace. */
function skipSpace(text: string, at: number): number {
  let code = text.charCodeAt(at);
  while (code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09) code = text.charCodeAt(++at);
  return at;
}

interface Scanned {
  /** The positions (start, end pairs) of the integer literals JSON.parse would round. */
  unsafe: number[];
  /** How many member names the text holds (strings followed by a colon). */
  members: number;
}

/**
 * One pass over `text`: the integer literals JSON.parse would round, the member names counted, and checks of the
 * nesting depth and of whole numbers written with a fraction or exponent. Strings are skipped with indexOf.
 */
function scan(text: string): Scanned {
  const unsafe: number[] = [];
  let members = 0;
  let depth = 0;
  let containers = 0;
  let i = 0;
  const length = text.length;
  while (i < length) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      const end = stringEnd(text, i);
      if (end === -1) return { unsafe, members }; // unterminated: JSON.parse reports it
      i = skipSpace(text, end + 1);
      if (text.charCodeAt(i) === COLON) members++;
    } else if (code === 0x5b || code === 0x7b) {
      depth++;
      if (depth > MAX_JSON_DEPTH) throw new JsonBodyError(`the body is nested deeper than ${MAX_JSON_DEPTH} levels`);
      if (++containers > MAX_JSON_CONTAINERS) {
        throw new JsonBodyError(`the body holds more than ${MAX_JSON_CONTAINERS} objects and arrays`);
      }
      i++;
    } else if (code === 0x5d || code === 0x7d) {
      depth--;
      i++;
    } else if (code === MINUS || (code >= ZERO && code <= NINE)) {
      const start = i;
      if (code === MINUS) i++;
      const digitsStart = i;
      // Counted on the way, so whether a fraction is a whole number is mostly known without converting the text.
      let next = text.charCodeAt(i);
      while (next >= ZERO && next <= NINE) next = text.charCodeAt(++i);
      const digits = i - digitsStart;
      let fractionDigits = 0;
      let exponent = 0;
      let exact = true;
      let significant = 0;
      let trailingZeros = 0;
      if (next === DOT || next === LOWER_E || next === UPPER_E) {
        // Only numbers with a fraction or exponent look at their integer digits a second time.
        for (let at = digitsStart; at < i; at++) {
          const digit = text.charCodeAt(at);
          if (digit !== ZERO || significant > 0) significant++;
          trailingZeros = digit === ZERO ? trailingZeros + 1 : 0;
        }
      }
      if (next === DOT) {
        exact = false;
        next = text.charCodeAt(++i);
        while (next >= ZERO && next <= NINE) {
          if (next !== ZERO || significant > 0) significant++;
          trailingZeros = next === ZERO ? trailingZeros + 1 : 0;
          fractionDigits++;
          next = text.charCodeAt(++i);
        }
      }
      if (next === LOWER_E || next === UPPER_E) {
        exact = false;
        next = text.charCodeAt(++i);
        const negative = next === MINUS;
        if (next === PLUS || next === MINUS) next = text.charCodeAt(++i);
        while (next >= ZERO && next <= NINE) {
          if (exponent < 10_000) exponent = exponent * 10 + (next - ZERO);
          next = text.charCodeAt(++i);
        }
        if (negative) exponent = -exponent;
      }
      if (exact) {
        // Up to 15 digits are always safe, 17 or more never; 16 are compared with 2^53 - 1 as text.
        if (digits > 16 || (digits === 16 && text.slice(digitsStart, i) > MAX_SAFE_DIGITS)) {
          if (unsafe.push(start, i) > 2 * MAX_EXACT_INTEGERS) {
            throw new JsonBodyError(`the body holds more than ${MAX_EXACT_INTEGERS} integers beyond 2^53`);
          }
        }
      } else if (
        significant === 0 ||
        (significant <= 15 && exponent >= -300 && exponent <= 300
          ? exponent - fractionDigits + trailingZeros >= 0 // exact in a double: whole iff no digit is left over
          : Number.isInteger(Number(text.slice(start, i))))
      ) {
        // Decided from the number as written: 1.0, 1e2 or 5.0000000000000001 is not an integer literal, and JSON.parse
        // would hand on a rounded whole number. The contract has no field that takes a non-integer number.
        throw new JsonBodyError(
          `the number ${text.slice(start, Math.min(i, start + 40))} is written with a fraction or an exponent; ` +
            'integers such as "id" must be written as plain integer literals',
        );
      }
    } else {
      i++;
    }
  }
  return { unsafe, members };
}

// String.prototype.isWellFormed (ES2024, Node 20+): false when the string holds a lone surrogate.
const isWellFormed = (text: string) => (text as unknown as { isWellFormed(): boolean }).isWellFormed();

/** Checks keys and strings, and turns marker strings back into bigint, in place. */
function walk(value: unknown, marker: string, checkStrings: boolean): unknown {
  if (typeof value === 'string') {
    if (marker !== '' && value.startsWith(marker)) return BigInt(value.slice(marker.length));
    if (checkStrings && !isWellFormed(value)) {
      throw new JsonBodyError('the body holds a string with a lone UTF-16 surrogate (\\ud800-\\udfff)');
    }
    return value;
  }
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) value[index] = walk(value[index], marker, checkStrings);
    return value;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (FORBIDDEN_KEYS.has(key)) throw new JsonBodyError(`the key "${key}" is not allowed in a request body`);
    if (checkStrings && !isWellFormed(key)) {
      throw new JsonBodyError('the body holds a key with a lone UTF-16 surrogate (\\ud800-\\udfff)');
    }
    record[key] = walk(record[key], marker, checkStrings);
  }
  return record;
}

/** How many members the objects in `value` hold, all levels together. */
function memberCount(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  let count = 0;
  if (Array.isArray(value)) {
    for (const item of value) count += memberCount(item);
    return count;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  count = keys.length;
  for (const key of keys) count += memberCount(record[key]);
  return count;
}

/** The first member name repeated within one object of `text` (valid JSON), as JSON.parse would read the name. */
function repeatedMember(text: string): string | undefined {
  // One set of names per open object; arrays hold none (null).
  const open: (Set<string> | null)[] = [];
  let i = 0;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      const end = stringEnd(text, i);
      const raw = text.slice(i + 1, end);
      i = skipSpace(text, end + 1);
      const names = open[open.length - 1];
      if (text.charCodeAt(i) === COLON && names) {
        const name = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
        if (names.has(name)) return name;
        names.add(name);
      }
    } else {
      if (code === 0x7b) open.push(new Set());
      else if (code === 0x5b) open.push(null);
      else if (code === 0x7d || code === 0x5d) open.pop();
      i++;
    }
  }
  return undefined;
}

/** A marker no client string is likely to start with: `~` and 12 random hex digits, fresh for each parse. */
function randomMarker(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(6));
  return `~${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

/** Parses `text` as JSON; integer literals outside the safe range come back as bigint, a repeated member is refused. */
export function parseJsonExact(text: string): unknown {
  const { unsafe, members } = scan(text);
  // Escapes can spell forbidden keys and lone surrogates; raw text from a strict UTF-8 decoder holds no surrogates.
  const checkStrings = text.includes('\\u');
  // The marker that turns a rewritten integer back into a bigint must be one no client string can start with: a
  // lone surrogate, when the text has none and no escapes that could spell one; else a random one per parse.
  const marker = unsafe.length === 0 ? '' : !checkStrings && isWellFormed(text) ? '\udfff' : randomMarker();
  let source = text;
  if (unsafe.length > 0) {
    let rewritten = '';
    let at = 0;
    for (let index = 0; index < unsafe.length; index += 2) {
      const start = unsafe[index]!;
      const end = unsafe[index + 1]!;
      rewritten += `${text.slice(at, start)}"${marker}${text.slice(start, end)}"`;
      at = end;
    }
    source = rewritten + text.slice(at);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(source);
  } catch (error) {
    throw new JsonBodyError(`the body is not valid JSON (${(error as Error).message})`);
  }
  // JSON.parse keeps one member per name: fewer members than names written means a name was repeated.
  if (members > 0 && memberCount(parsed) !== members) {
    const name = repeatedMember(text) ?? '';
    throw new JsonBodyError(
      `the member "${callerText(name)}" appears more than once in one object; each name may appear once`,
    );
  }
  const needsWalk =
    marker !== '' ||
    checkStrings ||
    text.includes('__proto__') ||
    text.includes('constructor') ||
    text.includes('prototype');
  return needsWalk ? walk(parsed, marker, checkStrings) : parsed;
}
