// The service's request rules and messages (packages/server/src/error-handler.ts describeIssue, validation.ts), for
// the fake: the first broken rule, in the order the service's Ajv checks them, as the message the service sends.
import { PLANT_STORE_LIMITS, PLANT_TEXT_PATTERN } from '../limits.js';

const INTEGER_TEXT = /^-?(?:0|[1-9]\d*)$/;
const INT64_RANGE = `must be an integer from ${PLANT_STORE_LIMITS.id.minimum} to ${PLANT_STORE_LIMITS.id.maximum}`;
const CURSOR = { minLength: 1, maxLength: 64, pattern: /^[A-Za-z0-9_-]+$/ };

/** An exact int64 from a number, bigint or (when `fromText`) decimal text; undefined when it is not one. */
export function toInt64(value: unknown, fromText: boolean): bigint | undefined {
  let exact: bigint;
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) return undefined;
    exact = BigInt(value);
  } else if (typeof value === 'bigint') exact = value;
  else if (fromText && typeof value === 'string' && INTEGER_TEXT.test(value)) exact = BigInt(value);
  else return undefined;
  const { minimum, maximum } = PLANT_STORE_LIMITS.id;
  return exact < minimum || exact > maximum ? undefined : exact;
}

// Ajv counts characters as code points, not UTF-16 units.
const length = (text: string) => [...text].length;

function textRule(where: string, value: unknown, bounds: { minLength: number; maxLength: number }): string | null {
  if (typeof value !== 'string') return `${where} must be a string`;
  if (length(value) > bounds.maxLength) return `${where} must be at most ${bounds.maxLength} characters long`;
  if (length(value) < bounds.minLength) {
    return `${where} must be at least ${bounds.minLength} character${bounds.minLength === 1 ? '' : 's'} long`;
  }
  if (!PLANT_TEXT_PATTERN.test(value)) return `${where} must not contain control characters`;
  return null;
}

export interface ValidPlant {
  id: bigint;
  name: string;
  tag?: string;
}

/** The NewPlant in `body`, or the service's 400 message for the first rule it breaks. */
export function validateNewPlant(body: unknown): { plant: ValidPlant } | { message: string } {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return { message: 'body must be a JSON object' };
  const fields = body as Record<string, unknown>;
  if (!Object.hasOwn(fields, 'name')) return { message: 'body is missing the required field "name"' };
  const nameProblem = textRule('body field "name"', fields.name, PLANT_STORE_LIMITS.name);
  if (nameProblem) return { message: nameProblem };
  if (Object.hasOwn(fields, 'tag')) {
    const tagProblem = textRule('body field "tag"', fields.tag, PLANT_STORE_LIMITS.tag);
    if (tagProblem) return { message: tagProblem };
  }
  if (!Object.hasOwn(fields, 'id')) return { message: 'body is missing the required field "id"' };
  const id = toInt64(fields.id, false);
  if (id === undefined) return { message: `body field "id" ${INT64_RANGE}` };
  const unknown = Object.keys(fields).find((key) => key !== 'id' && key !== 'name' && key !== 'tag');
  if (unknown !== undefined) {
    return { message: `body has an unknown field "${unknown}"; only the fields the contract declares are accepted` };
  }
  return {
    plant: { id, name: fields.name as string, ...(fields.tag === undefined ? {} : { tag: fields.tag as string }) },
  };
}

/** The id in a DELETE path, or the service's 400 message. */
export function validatePathId(text: string): { id: bigint } | { message: string } {
  const id = toInt64(text, true);
  return id === undefined ? { message: `path parameter "id" ${INT64_RANGE}` } : { id };
}

/** getPlants' query (`limit` with its default, `cursor`), or the service's 400 message. */
export function validateListQuery(
  query: URLSearchParams,
): { limit: number; cursor: string | undefined } | { message: string } {
  let limit: number = PLANT_STORE_LIMITS.limit.default;
  const limitText = query.get('limit');
  if (limitText !== null) {
    // The service coerces query text to the declared integer type, as Ajv's coerceTypes does.
    const value = limitText.trim() === '' ? Number.NaN : Number(limitText);
    if (!Number.isInteger(value)) return { message: 'query parameter "limit" must be an integer' };
    if (value < PLANT_STORE_LIMITS.limit.minimum) {
      return { message: `query parameter "limit" must be at least ${PLANT_STORE_LIMITS.limit.minimum}` };
    }
    if (value > PLANT_STORE_LIMITS.limit.maximum) {
      return { message: `query parameter "limit" must be at most ${PLANT_STORE_LIMITS.limit.maximum}` };
    }
    limit = value;
  }
  const cursor = query.get('cursor') ?? undefined;
  if (cursor !== undefined) {
    const where = 'query parameter "cursor"';
    if (length(cursor) > CURSOR.maxLength)
      return { message: `${where} must be at most ${CURSOR.maxLength} characters long` };
    if (length(cursor) < CURSOR.minLength) return { message: `${where} must be at least 1 character long` };
    if (!CURSOR.pattern.test(cursor)) return { message: `${where} has an invalid format` };
  }
  return { limit, cursor };
}
