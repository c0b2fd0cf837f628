// Parses JSON request bodies exactly: integers beyond 2^53 become bigint instead of being rounded, and keys that
// could pollute prototypes are refused. JSON.parse alone would turn 9007199254740993 into 9007199254740992.
import { randomBytes } from 'node:crypto';
import { INTEGER_TEXT } from '@plant-store/contract';
import type { FastifyInstance } from 'fastify';

/** The contract's limit on request bodies, in bytes (413 beyond it). */
export const BODY_LIMIT = 16_384;

export class JsonBodyError extends Error {
  override name = 'JsonBodyError';
}

// A JSON string literal, or a number token; strings are matched first so digits inside them are left alone.
const TOKEN = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;
const LONG_DIGITS = /\d{16}/;
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

function isUnsafeInteger(token: string): boolean {
  if (!INTEGER_TEXT.test(token)) return false;
  const value = BigInt(token);
  return value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER);
}

/** Parses `text` as JSON; integer literals outside the safe range come back as bigint. */
export function parseJsonExact(text: string): unknown {
  const needsBigints = LONG_DIGITS.test(text);
  // A random marker per parse: a client cannot forge it inside a string to smuggle in a bigint.
  const marker = needsBigints ? `~int64~${randomBytes(8).toString('hex')}:` : '';
  const source = needsBigints
    ? text.replace(TOKEN, (token) => (token[0] !== '"' && isUnsafeInteger(token) ? `"${marker}${token}"` : token))
    : text;
  const guardKeys = needsBigints || text.includes('__proto__') || text.includes('constructor') || text.includes('\\u');
  try {
    if (!guardKeys) return JSON.parse(source);
    return JSON.parse(source, function revive(key, value) {
      if (FORBIDDEN_KEYS.has(key)) throw new JsonBodyError(`the key "${key}" is not allowed in a request body`);
      if (needsBigints && typeof value === 'string' && value.startsWith(marker))
        return BigInt(value.slice(marker.length));
      return value;
    });
  } catch (error) {
    if (error instanceof JsonBodyError) throw error;
    throw new JsonBodyError(`the body is not valid JSON (${(error as Error).message})`);
  }
}

/** Makes parseJsonExact the only body parser: anything but application/json is a 415, an empty body a 400. */
export function registerJsonBodyParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    if (body === '') return done(new JsonBodyError('the body is empty; send a JSON object'), undefined);
    try {
      done(null, parseJsonExact(body as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}
