// The request rules every side runs, driven by the contract's generated facts: how a broken rule is told (the
// message and the `details` entry of a 400, one wording for the server and the testing kit) and the checks of one
// operation's parameters and body, in the order the service reports them. No Node or DOM APIs.
import { callerText } from './caller-text.js';
import type { components } from './generated/openapi.js';
import { INT64_RANGE_MESSAGE, INTEGER_TEXT, toInt64 } from './int64.js';
import type { FieldFacts, OperationFacts, ParameterFacts, ValueFacts } from './operation-facts.js';

/** The 400's message for an operation that requires a body and got none at all (no bytes, no Content-Type). */
export const BODY_REQUIRED_MESSAGE =
  'the request body is required: send a JSON object with Content-Type: application/json';

/** One broken rule, as the service reports it in a 400's `details`. */
export type ErrorDetail = components['schemas']['ErrorDetail'];

/** A broken rule, before it is put in words. */
export interface BrokenRule {
  /** Where the value was: `body`, `query` or `path` (any other name is used as written). */
  location: string;
  /** The dotted path of the value within its location: a body field, a parameter; '' for the body itself. */
  pointer: string;
  /** The JSON Schema keyword broken (`required`, `type`, `maxLength`, ...), `int64`, `unknownField` or `repeated`. */
  rule: string;
  /** The missing, unknown or repeated field or parameter, for `required`, `unknownField` and `repeated`. */
  field?: string;
  /** The names the location accepts, for `unknownField` in the query. */
  accepted?: readonly string[];
  /** How many times a parameter was given, for `repeated`. */
  count?: number;
  /** The type expected, for `type`. */
  type?: string;
  /** The bound, for `minLength`, `maxLength`, `minimum` and `maximum`. */
  limit?: number;
  /** The pattern, for `pattern`. */
  pattern?: string;
  /** Words for a rule this module does not know. */
  message?: string;
}

/** A broken rule as the service answers it: the message and the same as data. */
export interface Problem {
  message: string;
  detail: ErrorDetail;
}

/** The rule with the names it may echo (the field, the pointer) as messages repeat caller text. */
function callerNamesCut(broken: BrokenRule): BrokenRule {
  const pointer = callerText(broken.pointer);
  const field = broken.field === undefined ? undefined : callerText(broken.field);
  if (pointer === broken.pointer && field === broken.field) return broken;
  return { ...broken, pointer, ...(field === undefined ? {} : { field }) };
}

const PARTS: Record<string, string> = { query: 'query parameter', path: 'path parameter', header: 'header' };

/**
 * The 400's message for a broken rule. A name the caller chose (an unknown field or parameter) is cut short
 * (caller-text.ts), so the message stays small whatever was sent.
 */
export function describeBrokenRule(rule: BrokenRule): string {
  const broken = callerNamesCut(rule);
  const { location, pointer } = broken;
  const part = PARTS[location] ?? location;
  const where = location === 'body' ? (pointer ? `body field "${pointer}"` : 'body') : `${part} "${pointer}"`;
  switch (broken.rule) {
    case 'required':
      if (location === 'body') return `${where} is missing the required field "${broken.field}"`;
      return `${part} "${broken.field}" is required`;
    case 'unknownField':
      if (location === 'query') {
        const accepted = broken.accepted?.length
          ? `accepts only ${broken.accepted.join(', ')}`
          : 'takes no query parameters';
        return `unknown query parameter "${broken.field}"; this operation ${accepted}`;
      }
      return `${where} has an unknown field "${broken.field}"; only the fields the contract declares are accepted`;
    case 'repeated':
      return `${part} "${broken.field}" is given ${broken.count} times; send it at most once`;
    case 'type':
      if (where === 'body') return `body must be a JSON ${broken.type}`;
      return `${where} must be ${broken.type === 'integer' ? 'an integer' : `a ${broken.type}`}`;
    case 'pattern':
      if (String(broken.pattern).includes('\\u0000')) return `${where} must not contain control characters`;
      if (broken.pattern === '^[!-~]+$') return `${where} must be visible ASCII characters, without spaces`;
      return `${where} has an invalid format`;
    case 'minLength':
      return `${where} must be at least ${broken.limit} character${broken.limit === 1 ? '' : 's'} long`;
    case 'maxLength':
      return `${where} must be at most ${broken.limit} characters long`;
    case 'minimum':
      return `${where} must be at least ${broken.limit}`;
    case 'maximum':
      return `${where} must be at most ${broken.limit}`;
    case 'int64':
      return `${where} ${INT64_RANGE_MESSAGE}`;
    default:
      return `${where} ${broken.message ?? 'is invalid'}`;
  }
}

/** The `details` entry for a broken rule, its field cut short as the message has it. */
export function detailOfBrokenRule(rule: BrokenRule): ErrorDetail {
  const broken = callerNamesCut(rule);
  const location = (['body', 'query', 'path'].includes(broken.location) ? broken.location : 'body') as
    | 'body'
    | 'query'
    | 'path';
  const named = broken.rule === 'required' || broken.rule === 'unknownField' || broken.rule === 'repeated';
  const field = named ? (broken.field ?? '') : broken.pointer;
  return { location, field, rule: broken.rule, ...(typeof broken.limit === 'number' ? { limit: broken.limit } : {}) };
}

function problem(broken: BrokenRule): Problem {
  return { message: describeBrokenRule(broken), detail: detailOfBrokenRule(broken) };
}

// JSON Schema counts characters as code points, not UTF-16 units.
const length = (text: string) => [...text].length;

// A header's broken rule is told in the message alone (ErrorDetail has no header location), as the service does.
type Location = 'body' | 'query' | 'path' | 'header';

/**
 * Checks one value against its facts, in the order the service's validation reports: type, then length, then
 * pattern for text; decimal integer text, then the range, for integers. `fromText`: path and query values arrive as
 * text. Returns the value as the handler gets it (an exact int64, an integer), or the first broken rule.
 */
export function checkValue(
  location: Location,
  facts: ValueFacts & { name: string },
  value: unknown,
  fromText: boolean,
): { value: unknown } | Problem {
  const at = { location, pointer: facts.name };
  if (facts.type === 'integer' && facts.format === 'int64') {
    if (fromText && !(typeof value === 'string' && INTEGER_TEXT.test(value))) {
      return problem({ ...at, rule: 'type', type: 'integer' });
    }
    const exact = toInt64(value, fromText);
    return exact === undefined ? problem({ ...at, rule: 'int64' }) : { value: exact };
  }
  if (facts.type === 'integer') {
    // Decimal integer text and nothing else (no `0x3`, `+3`, `3.0` or spaces), as the service reads it.
    const number = fromText
      ? typeof value === 'string' && INTEGER_TEXT.test(value)
        ? Number(value)
        : Number.NaN
      : typeof value === 'number'
        ? value
        : Number.NaN;
    if (!Number.isInteger(number)) return problem({ ...at, rule: 'type', type: 'integer' });
    if (facts.minimum !== undefined && number < facts.minimum) {
      return problem({ ...at, rule: 'minimum', limit: facts.minimum });
    }
    if (facts.maximum !== undefined && number > facts.maximum) {
      return problem({ ...at, rule: 'maximum', limit: facts.maximum });
    }
    return { value: number };
  }
  if (facts.type === 'string') {
    if (typeof value !== 'string') return problem({ ...at, rule: 'type', type: 'string' });
    if (facts.maxLength !== undefined && length(value) > facts.maxLength) {
      return problem({ ...at, rule: 'maxLength', limit: facts.maxLength });
    }
    if (facts.minLength !== undefined && length(value) < facts.minLength) {
      return problem({ ...at, rule: 'minLength', limit: facts.minLength });
    }
    if (facts.pattern !== undefined && !new RegExp(facts.pattern, 'u').test(value)) {
      return problem({ ...at, rule: 'pattern', pattern: facts.pattern });
    }
    return { value };
  }
  return { value };
}

function isProblem(result: object): result is Problem {
  return 'detail' in result;
}

/**
 * The query's parameter names against the ones the operation declares: the first name it does not declare
 * (`unknownField`), else the first declared name given more than once (`repeated`), else undefined. `names` lists
 * every name as the query string gives it, repeats included (URLSearchParams' keys(); an empty segment such as the
 * one in `?&limit=5` is no name at all, while `?=x` names the empty string, which no operation declares). Runs on
 * every operation, those without query parameters too.
 */
export function checkQueryNames(operation: OperationFacts, names: Iterable<string>): Problem | undefined {
  const declared = queryNamesOf(operation);
  // How often each declared name was given (by its place in `declared`), and the places in the order first given:
  // two small arrays, as every request of the service runs this.
  const counts = declared.map(() => 0);
  const given: number[] = [];
  for (const name of names) {
    const at = declared.indexOf(name);
    if (at === -1) {
      return problem({ location: 'query', pointer: '', rule: 'unknownField', field: name, accepted: declared });
    }
    if (counts[at] === 0) given.push(at);
    counts[at]! += 1;
  }
  for (const at of given) {
    const count = counts[at]!;
    if (count > 1) return problem({ location: 'query', pointer: '', rule: 'repeated', field: declared[at], count });
  }
  return undefined;
}

/** Each operation's query parameter names, in the contract's order, computed once per operation. */
const queryNames = new WeakMap<OperationFacts, readonly string[]>();
function queryNamesOf(operation: OperationFacts): readonly string[] {
  let names = queryNames.get(operation);
  if (names === undefined) {
    names = operation.parameters.filter((parameter) => parameter.in === 'query').map((p) => p.name);
    queryNames.set(operation, names);
  }
  return names;
}

/**
 * An operation's parameters as the handler gets them (query defaults applied), or the first broken rule. Path
 * parameters are checked first, then the query, each in the contract's order.
 */
export function checkParameters(
  operation: OperationFacts,
  path: Readonly<Record<string, string>>,
  query: { get(name: string): string | null },
): { params: Record<string, unknown>; query: Record<string, unknown> } | Problem {
  const params: Record<string, unknown> = {};
  const values: Record<string, unknown> = {};
  const ordered = [...operation.parameters].sort((a, b) => (a.in === b.in ? 0 : a.in === 'path' ? -1 : 1));
  for (const parameter of ordered as ParameterFacts[]) {
    const text = parameter.in === 'path' ? path[parameter.name] : (query.get(parameter.name) ?? undefined);
    const into = parameter.in === 'path' ? params : values;
    if (text === undefined) {
      if (parameter.required) {
        return problem({ location: parameter.in, pointer: '', rule: 'required', field: parameter.name });
      }
      if (parameter.default !== undefined) into[parameter.name] = parameter.default;
      continue;
    }
    const checked = checkValue(parameter.in, parameter, text, true);
    if (isProblem(checked)) return checked;
    into[parameter.name] = checked.value;
  }
  return { params, query: values };
}

/** An operation's JSON body as the handler gets it, or the first broken rule (fields in the contract's order). */
export function checkBody(operation: OperationFacts, body: unknown): { body: unknown } | Problem {
  const facts = operation.body;
  if (facts === null) return { body: undefined };
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return problem({ location: 'body', pointer: '', rule: 'type', type: 'object' });
  }
  const fields = body as Record<string, unknown>;
  const checked: Record<string, unknown> = {};
  for (const field of facts.fields as FieldFacts[]) {
    if (!Object.hasOwn(fields, field.name)) {
      if (field.required) return problem({ location: 'body', pointer: '', rule: 'required', field: field.name });
      continue;
    }
    const result = checkValue('body', field, fields[field.name], false);
    if (isProblem(result)) return result;
    checked[field.name] = result.value;
  }
  if (facts.closed) {
    const known = new Set(facts.fields.map((field) => field.name));
    const unknown = Object.keys(fields).find((key) => !known.has(key));
    if (unknown !== undefined) return problem({ location: 'body', pointer: '', rule: 'unknownField', field: unknown });
  }
  return { body: checked };
}
