// fast-check arbitraries derived from the contract's JSON Schemas: values a schema accepts, and values that break
// exactly one of its rules, each named after the rule. Nothing here lists the contract's fields by hand. Shared by the
// conformance run and the service's own contract fuzz test.
import { flattenAllOf, INT64_MAX, INT64_MIN } from '@plant-store/contract';
import fc from 'fast-check';

export type Schema = Record<string, unknown>;

export interface ArbitraryOptions {
  /**
   * The int64 values to use (the conformance run writes only ids of its reserved range); by default the whole range
   * with its edges and the neighbours of 2^53.
   */
  int64?: fc.Arbitrary<bigint>;
}

export interface BrokenValue {
  value: unknown;
  /** The rule broken: a JSON Schema keyword (`type`, `maxLength`, `required`, ...), `int64 range`, `unknown field`. */
  rule: string;
  /** The field whose rule it is (a path, `a.b`, in nested objects); absent for a rule of the value itself. */
  field?: string;
  /** Both, as brokenRule labels them: `name: maxLength`, `color: unknown field`, `type`. */
  breaks: string;
}

/** Where a rule of a request is broken: a path or query parameter, or the body. */
export type RuleSite = 'path' | 'query' | 'body';

/**
 * A broken rule's label, in one shape wherever it is built: `<where> <field>: <rule>` (`query limit: minimum`,
 * `path id: type`, `body name: maxLength`, `body color: unknown field`); `<where>: <rule>` for a rule of the whole
 * body (`body: type`); without `where`, the label within a value (`name: maxLength`, `type`). A field name other than
 * letters, digits, `_`, `-` and `.` (an unknown field's, drawn at random) is quoted as JSON, so the shape holds.
 */
export function brokenRule(rule: string, field?: string, where?: RuleSite): string {
  const named = field === undefined ? undefined : /^[\w.-]+$/.test(field) ? field : JSON.stringify(field);
  if (where === undefined) return named === undefined ? rule : `${named}: ${rule}`;
  return named === undefined ? `${where}: ${rule}` : `${where} ${named}: ${rule}`;
}

/** A value that breaks `rule`, of its `field` when given. */
function broken(value: unknown, rule: string, field?: string): BrokenValue {
  return { value, rule, ...(field === undefined ? {} : { field }), breaks: brokenRule(rule, field) };
}

function patternOf(schema: Schema): RegExp | undefined {
  return typeof schema.pattern === 'string' ? new RegExp(schema.pattern, 'u') : undefined;
}

const codePoints = (value: string) => [...value].length;

// Any code point but the surrogates, as one character. fast-check's own `unit: 'binary'` spends seconds of CPU
// building its tables on first use, more than a whole conformance run's requests.
const anyCodePoint = fc
  .integer({ min: 0, max: 0x10ffff })
  .filter((code) => code < 0xd800 || code > 0xdfff)
  .map((code) => String.fromCodePoint(code));

/** The whole int64 range, its edges and the neighbours of 2^53 (where doubles stop being exact). */
export const anyInt64: fc.Arbitrary<bigint> = fc.oneof(
  fc.constantFrom(INT64_MIN, INT64_MAX, 2n ** 53n + 1n, 2n ** 53n, -(2n ** 53n) - 1n, 0n, -1n),
  fc.bigInt({ min: INT64_MIN, max: INT64_MAX }),
  fc.integer().map(BigInt),
);

/** Values the schema accepts; int64 integers come as bigint. */
export function validValue(input: Schema, options: ArbitraryOptions = {}): fc.Arbitrary<unknown> {
  const schema = flattenAllOf(input);
  switch (schema.type) {
    case 'string': {
      const min = (schema.minLength as number | undefined) ?? 0;
      const max = (schema.maxLength as number | undefined) ?? 64;
      const pattern = patternOf(schema);
      const fits = (value: string) =>
        codePoints(value) >= min && codePoints(value) <= max && (!pattern || pattern.test(value));
      const generated = fc.oneof(
        fc.string({ minLength: min, maxLength: max, unit: 'grapheme' }),
        fc.string({ minLength: min, maxLength: max, unit: anyCodePoint }),
      );
      // Text at its bounds, in characters beyond the Basic Multilingual Plane too (a length counts code points).
      const atBounds = fc
        .constantFrom(min, max)
        .chain((length) => fc.constantFrom('a'.repeat(length), '\u{1F335}'.repeat(length), 'é'.repeat(length)));
      return fc.oneof({ weight: 4, arbitrary: generated }, { weight: 1, arbitrary: atBounds }).filter(fits);
    }
    case 'integer': {
      if (schema.format === 'int64') return options.int64 ?? anyInt64;
      const min = (schema.minimum as number | undefined) ?? -(2 ** 31);
      const max = (schema.maximum as number | undefined) ?? 2 ** 31 - 1;
      return fc.oneof(fc.constantFrom(min, max), fc.integer({ min, max }));
    }
    case 'object': {
      const properties = (schema.properties as Record<string, Schema> | undefined) ?? {};
      const required = (schema.required as string[] | undefined) ?? [];
      return fc.record(
        Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, validValue(property, options)])),
        { requiredKeys: required },
      );
    }
    default:
      throw new Error(`no generator for schema type ${String(schema.type)}`);
  }
}

/** Values that break one rule of the schema, each with the rule it breaks. */
export function invalidValue(input: Schema, options: ArbitraryOptions = {}): fc.Arbitrary<BrokenValue> {
  const schema = flattenAllOf(input);
  const wrong = (value: unknown, rule: string) => fc.constant(broken(value, rule));
  const options_: fc.Arbitrary<BrokenValue>[] = [];
  switch (schema.type) {
    case 'string': {
      options_.push(
        wrong(5, 'type'),
        wrong(true, 'type'),
        wrong(null, 'type'),
        wrong({}, 'type'),
        wrong(['x'], 'type'),
      );
      const min = schema.minLength as number | undefined;
      const max = schema.maxLength as number | undefined;
      if (min !== undefined && min > 0) options_.push(wrong('', 'minLength'));
      if (max !== undefined) {
        options_.push(
          fc
            .string({ minLength: max + 1, maxLength: max + 40 })
            .map((value) => broken(value.padEnd(max + 1, 'x'), 'maxLength')),
          wrong('\u{1F335}'.repeat(max + 1), 'maxLength'),
        );
      }
      const pattern = patternOf(schema);
      if (pattern) {
        // Control characters (C0, DEL, C1) inside otherwise fine text.
        options_.push(
          fc
            .tuple(
              fc.string({ maxLength: 5 }),
              fc.oneof(fc.integer({ min: 0, max: 0x1f }), fc.integer({ min: 0x7f, max: 0x9f })),
            )
            .map(([text, code]) => `a${text}${String.fromCharCode(code)}`)
            .filter((value) => !pattern.test(value) && codePoints(value) <= (max ?? Infinity))
            .map((value) => broken(value, 'pattern')),
        );
      }
      break;
    }
    case 'integer': {
      options_.push(wrong(true, 'type'), wrong(null, 'type'));
      if (schema.format === 'int64') {
        // Wrong forms of ids the run may write, so that a server that coerces them still lands in that range.
        const ids = options.int64 ?? anyInt64;
        options_.push(
          ids.map((id) => broken(String(id), 'type')),
          ids.map((id) => broken(new RawNumber(`${id}.5`), 'type')),
          fc
            .constantFrom(INT64_MAX + 1n, INT64_MIN - 1n, 10n ** 20n, -(10n ** 20n))
            .map((value) => broken(value, 'int64 range')),
        );
      } else {
        options_.push(wrong('12', 'type'), wrong(1.5, 'type'));
        if (typeof schema.minimum === 'number') options_.push(wrong(schema.minimum - 1, 'minimum'));
        if (typeof schema.maximum === 'number') options_.push(wrong(schema.maximum + 1, 'maximum'));
      }
      break;
    }
    case 'object': {
      const properties = (schema.properties as Record<string, Schema> | undefined) ?? {};
      const required = (schema.required as string[] | undefined) ?? [];
      const valid = validValue(schema, options) as fc.Arbitrary<Record<string, unknown>>;
      options_.push(wrong([], 'type'), wrong('object', 'type'), wrong(null, 'type'));
      for (const name of required) {
        options_.push(
          valid.map((value) => {
            const { [name]: _dropped, ...rest } = value;
            return broken(rest, 'required', name);
          }),
        );
      }
      options_.push(
        fc
          .tuple(valid, fc.string({ minLength: 1, maxLength: 12 }))
          .filter(([, key]) => !(key in properties) && !['__proto__', 'constructor', 'prototype'].includes(key))
          .map(([value, key]) => broken({ ...value, [key]: 'extra' }, 'unknown field', key)),
      );
      for (const [name, property] of Object.entries(properties)) {
        options_.push(
          fc
            .tuple(valid, invalidValue(property, options))
            .map(([value, bad]) =>
              broken(
                { ...value, [name]: bad.value },
                bad.rule,
                bad.field === undefined ? name : `${name}.${bad.field}`,
              ),
            ),
        );
      }
      break;
    }
  }
  return fc.oneof(...options_);
}

/** A number literal written as is into JSON (a fraction or exponent that JSON.stringify would not keep). */
export class RawNumber {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

/** JSON text with bigints written as exact integer literals and RawNumbers as their text. */
export function toJson(value: unknown): string {
  const marker = '~json-literal~';
  return JSON.stringify(value, (_key, item: unknown) => {
    if (typeof item === 'bigint') return `${marker}${item}`;
    if (item instanceof RawNumber) return `${marker}${item.text}`;
    return item;
  }).replace(/"~json-literal~([-+.\deE]+)"/g, '$1');
}
