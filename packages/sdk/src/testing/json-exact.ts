// Parses request bodies as the service does: integers beyond 2^53 become bigint instead of being rounded, and keys
// that could pollute prototypes are refused with the service's message. No Node imports: runs in browsers too.

import { INTEGER_TEXT } from '@plant-store/contract';

/** A body the service would refuse with 400 before validating it; `message` is the service's. */
export class BodyError extends Error {}

const TOKEN = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

function isUnsafeInteger(token: string): boolean {
  if (!INTEGER_TEXT.test(token)) return false;
  const value = BigInt(token);
  return value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER);
}

/** `text` as JSON, integer literals outside the safe range as bigint; a BodyError with the service's message. */
export function parseJsonExact(text: string): unknown {
  const random = new Uint32Array(2);
  globalThis.crypto.getRandomValues(random);
  const marker = `~int64~${random[0]?.toString(16)}${random[1]?.toString(16)}:`;
  const source = text.replace(TOKEN, (token) =>
    token[0] !== '"' && isUnsafeInteger(token) ? `"${marker}${token}"` : token,
  );
  try {
    return JSON.parse(source, (key, value: unknown) => {
      if (FORBIDDEN_KEYS.has(key)) throw new BodyError(`the key "${key}" is not allowed in a request body`);
      if (typeof value === 'string' && value.startsWith(marker)) return BigInt(value.slice(marker.length));
      return value;
    });
  } catch (error) {
    if (error instanceof BodyError) throw error;
    throw new BodyError(`the body is not valid JSON (${(error as Error).message})`);
  }
}
