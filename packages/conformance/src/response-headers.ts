// The `response-headers-conformance` check: every header a declared response lists, when the answer carries it, holds
// a value its schema allows (Retry-After an integer of at least 0, Idempotent-Replayed only `true`), and an ETag is an
// RFC 9110 entity tag ("...", or W/"..." for a weak one) that a client can send back in If-None-Match.
import type { ResponseSpec, Schema } from './contract.js';

// RFC 9110 section 8.8.3: entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE, etagc = %x21 / %x23-7E / obs-text.
const ENTITY_TAG = /^(W\/)?"[\x21\x23-\x7e\x80-\xff]*"$/;

/** Why `value` does not fit `schema` (a header's schema: a string or an integer), or undefined when it does. */
function valueProblem(name: string, value: string, schema: Schema): string | undefined {
  const quoted = JSON.stringify(value);
  if (name === 'etag' && !ENTITY_TAG.test(value)) return `ETag ${quoted} is not an entity tag ("..." or W/"...")`;
  if (schema.type === 'integer') {
    if (!/^-?\d+$/.test(value)) return `${name} ${quoted} is not an integer`;
    const number = Number(value);
    if (typeof schema.minimum === 'number' && number < schema.minimum)
      return `${name} ${quoted} is below ${schema.minimum}`;
    if (typeof schema.maximum === 'number' && number > schema.maximum)
      return `${name} ${quoted} is above ${schema.maximum}`;
    return undefined;
  }
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) {
    return `${name} ${quoted} is none of ${schema.enum.map((item) => JSON.stringify(item)).join(', ')}`;
  }
  if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value)) {
    return `${name} ${quoted} breaks the pattern ${schema.pattern}`;
  }
  return undefined;
}

/** Problems with the declared headers `headers` carries; undefined when it carries none of them. */
export function responseHeaderProblems(declared: ResponseSpec, headers: Record<string, string>): string[] | undefined {
  const present = Object.entries(declared.headerSchemas).filter(([name]) => headers[name] !== undefined);
  if (present.length === 0) return undefined;
  return present.flatMap(([name, schema]) => valueProblem(name, headers[name]!, schema) ?? []);
}
