// The service's request rules and messages (packages/server/src/error-handler.ts describeIssue, validation.ts), for
// the fake: the first broken rule, in the order the service's Ajv checks them, as the message the service sends.
import { type ErrorBody, INTEGER_TEXT, toInt64 as toContractInt64 } from '@plant-store/contract';
import { PLANT_STORE_LIMITS, PLANT_TEXT_PATTERN } from '../limits.js';

/** One broken rule, as the service reports it in a 400's `details`. */
export type ErrorDetail = NonNullable<ErrorBody['details']>[number];

/** A broken rule: the service's message and the same as data. */
export interface Problem {
  message: string;
  detail: ErrorDetail;
}

function problem(message: string, detail: ErrorDetail): Problem {
  return { message, detail };
}

const INT64_RANGE = `must be an integer from ${PLANT_STORE_LIMITS.id.minimum} to ${PLANT_STORE_LIMITS.id.maximum}`;
const CURSOR = { minLength: 1, maxLength: 64, pattern: /^[A-Za-z0-9_-]+$/ };

/** An exact int64 as a bigint (the fake stores ids as bigint), from the contract's toInt64; undefined when not one. */
export function toInt64(value: unknown, fromText: boolean): bigint | undefined {
  const exact = toContractInt64(value, fromText);
  return exact === undefined ? undefined : BigInt(exact);
}

// Ajv counts characters as code points, not UTF-16 units.
const length = (text: string) => [...text].length;

function textRule(
  location: ErrorDetail['location'],
  field: string,
  value: unknown,
  bounds: { minLength: number; maxLength: number; pattern: RegExp; patternMessage: string },
): Problem | null {
  const where = location === 'body' ? `body field "${field}"` : `query parameter "${field}"`;
  if (typeof value !== 'string') return problem(`${where} must be a string`, { location, field, rule: 'type' });
  if (length(value) > bounds.maxLength) {
    return problem(`${where} must be at most ${bounds.maxLength} characters long`, {
      location,
      field,
      rule: 'maxLength',
      limit: bounds.maxLength,
    });
  }
  if (length(value) < bounds.minLength) {
    return problem(`${where} must be at least ${bounds.minLength} character${bounds.minLength === 1 ? '' : 's'} long`, {
      location,
      field,
      rule: 'minLength',
      limit: bounds.minLength,
    });
  }
  if (!bounds.pattern.test(value))
    return problem(`${where} ${bounds.patternMessage}`, { location, field, rule: 'pattern' });
  return null;
}

const PLANT_TEXT = { pattern: PLANT_TEXT_PATTERN, patternMessage: 'must not contain control characters' };

export interface ValidPlant {
  id: bigint;
  name: string;
  tag?: string;
}

/** The NewPlant in `body`, or the service's 400 message and detail for the first rule it breaks. */
export function validateNewPlant(body: unknown): { plant: ValidPlant } | Problem {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return problem('body must be a JSON object', { location: 'body', field: '', rule: 'type' });
  }
  const fields = body as Record<string, unknown>;
  const missing = (field: string) =>
    problem(`body is missing the required field "${field}"`, { location: 'body', field, rule: 'required' });
  if (!Object.hasOwn(fields, 'name')) return missing('name');
  const nameProblem = textRule('body', 'name', fields.name, { ...PLANT_STORE_LIMITS.name, ...PLANT_TEXT });
  if (nameProblem) return nameProblem;
  if (Object.hasOwn(fields, 'tag')) {
    const tagProblem = textRule('body', 'tag', fields.tag, { ...PLANT_STORE_LIMITS.tag, ...PLANT_TEXT });
    if (tagProblem) return tagProblem;
  }
  if (!Object.hasOwn(fields, 'id')) return missing('id');
  const id = toInt64(fields.id, false);
  if (id === undefined) {
    return problem(`body field "id" ${INT64_RANGE}`, { location: 'body', field: 'id', rule: 'int64' });
  }
  const unknown = Object.keys(fields).find((key) => key !== 'id' && key !== 'name' && key !== 'tag');
  if (unknown !== undefined) {
    return problem(`body has an unknown field "${unknown}"; only the fields the contract declares are accepted`, {
      location: 'body',
      field: unknown,
      rule: 'unknownField',
    });
  }
  return {
    plant: { id, name: fields.name as string, ...(fields.tag === undefined ? {} : { tag: fields.tag as string }) },
  };
}

/** The id in a DELETE path, or the service's 400 message. */
export function validatePathId(text: string): { id: bigint } | Problem {
  // Text that is not a decimal integer is a type error; an integer outside int64 breaks the int64 rule.
  if (!INTEGER_TEXT.test(text)) {
    return problem('path parameter "id" must be an integer', { location: 'path', field: 'id', rule: 'type' });
  }
  const id = toInt64(text, true);
  if (id !== undefined) return { id };
  return problem(`path parameter "id" ${INT64_RANGE}`, { location: 'path', field: 'id', rule: 'int64' });
}

/** getPlants' query (`limit` with its default, `cursor`), or the service's 400 message and detail. */
export function validateListQuery(query: URLSearchParams): { limit: number; cursor: string | undefined } | Problem {
  let limit: number = PLANT_STORE_LIMITS.limit.default;
  const limitText = query.get('limit');
  if (limitText !== null) {
    const { minimum, maximum } = PLANT_STORE_LIMITS.limit;
    const where = 'query parameter "limit"';
    // Decimal integer text and nothing else (no `0x3`, `+3`, `3.0` or spaces), as the service reads it.
    const value = INTEGER_TEXT.test(limitText) ? Number(limitText) : Number.NaN;
    if (!Number.isInteger(value)) {
      return problem(`${where} must be an integer`, { location: 'query', field: 'limit', rule: 'type' });
    }
    if (value < minimum) {
      return problem(`${where} must be at least ${minimum}`, {
        location: 'query',
        field: 'limit',
        rule: 'minimum',
        limit: minimum,
      });
    }
    if (value > maximum) {
      return problem(`${where} must be at most ${maximum}`, {
        location: 'query',
        field: 'limit',
        rule: 'maximum',
        limit: maximum,
      });
    }
    limit = value;
  }
  const cursor = query.get('cursor') ?? undefined;
  if (cursor !== undefined) {
    const cursorProblem = textRule('query', 'cursor', cursor, { ...CURSOR, patternMessage: 'has an invalid format' });
    if (cursorProblem) return cursorProblem;
  }
  return { limit, cursor };
}
