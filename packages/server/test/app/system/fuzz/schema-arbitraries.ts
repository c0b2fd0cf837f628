// fast-check arbitraries derived from the contract's JSON Schemas: values a schema accepts, and values that break
// exactly one of its rules. Nothing here lists the contract's fields by hand.
import { flattenAllOf, INT64_MAX, INT64_MIN } from '@plant-store/contract';
import fc from 'fast-check';

export type Schema = Record<string, unknown>;

function patternOf(schema: Schema): RegExp | undefined {
  return typeof schema.pattern === 'string' ? new RegExp(schema.pattern, 'u') : undefined;
}

/** Values the schema accepts; int64 integers come as bigint when beyond 2^53. */
export function validValue(input: Schema): fc.Arbitrary<unknown> {
  const schema = flattenAllOf(input);
  switch (schema.type) {
    case 'string': {
      const min = (schema.minLength as number | undefined) ?? 0;
      const max = (schema.maxLength as number | undefined) ?? 64;
      const pattern = patternOf(schema);
      return fc
        .oneof(
          fc.string({ minLength: min, maxLength: max, unit: 'grapheme' }),
          fc.string({ minLength: min, maxLength: max, unit: 'binary' }),
        )
        .filter((value) => [...value].length >= min && [...value].length <= max && (!pattern || pattern.test(value)));
    }
    case 'integer': {
      if (schema.format === 'int64') {
        return fc.oneof(
          fc.constantFrom(INT64_MIN, INT64_MAX, 2n ** 53n + 1n, 2n ** 53n, -(2n ** 53n) - 1n, 0n, -1n),
          fc.bigInt({ min: INT64_MIN, max: INT64_MAX }),
          fc.integer(),
        );
      }
      const min = (schema.minimum as number | undefined) ?? -(2 ** 31);
      const max = (schema.maximum as number | undefined) ?? 2 ** 31 - 1;
      return fc.oneof(fc.constantFrom(min, max), fc.integer({ min, max }));
    }
    case 'object': {
      const properties = (schema.properties as Record<string, Schema> | undefined) ?? {};
      const required = (schema.required as string[] | undefined) ?? [];
      return fc.record(
        Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, validValue(property)])),
        { requiredKeys: required },
      );
    }
    default:
      throw new Error(`no generator for schema type ${String(schema.type)}`);
  }
}

/** Values that break one rule of the schema, each with the rule it breaks. */
export function invalidValue(input: Schema): fc.Arbitrary<{ value: unknown; breaks: string }> {
  const schema = flattenAllOf(input);
  const wrong = (value: unknown, breaks: string) => fc.constant({ value, breaks });
  const options: fc.Arbitrary<{ value: unknown; breaks: string }>[] = [];
  switch (schema.type) {
    case 'string': {
      options.push(wrong(5, 'type'), wrong(true, 'type'), wrong(null, 'type'), wrong({}, 'type'), wrong(['x'], 'type'));
      const min = schema.minLength as number | undefined;
      const max = schema.maxLength as number | undefined;
      if (min !== undefined && min > 0) options.push(wrong('', 'minLength'));
      if (max !== undefined)
        options.push(
          fc
            .string({ minLength: max + 1, maxLength: max + 40 })
            .map((value) => ({ value: value.padEnd(max + 1, 'x'), breaks: 'maxLength' })),
        );
      const pattern = patternOf(schema);
      if (pattern) {
        options.push(
          fc
            .tuple(fc.string({ maxLength: 5 }), fc.integer({ min: 0, max: 31 }))
            .map(([text, code]) => ({ value: `a${text}${String.fromCharCode(code)}`, breaks: 'pattern' }))
            .filter(({ value }) => !pattern.test(value) && value.length <= (max ?? Infinity)),
        );
      }
      break;
    }
    case 'integer': {
      options.push(wrong('12', 'type'), wrong(1.5, 'type'), wrong(true, 'type'), wrong(null, 'type'));
      if (schema.format === 'int64') {
        options.push(
          fc
            .constantFrom(INT64_MAX + 1n, INT64_MIN - 1n, 10n ** 20n)
            .map((value) => ({ value, breaks: 'int64 range' })),
        );
      } else {
        if (typeof schema.minimum === 'number') options.push(wrong(schema.minimum - 1, 'minimum'));
        if (typeof schema.maximum === 'number') options.push(wrong(schema.maximum + 1, 'maximum'));
      }
      break;
    }
    case 'object': {
      const properties = (schema.properties as Record<string, Schema> | undefined) ?? {};
      const required = (schema.required as string[] | undefined) ?? [];
      const valid = validValue(schema) as fc.Arbitrary<Record<string, unknown>>;
      options.push(wrong([], 'type'), wrong('object', 'type'), wrong(null, 'type'));
      for (const name of required) {
        options.push(
          valid.map((value) => {
            const { [name]: _dropped, ...rest } = value;
            return { value: rest, breaks: `required ${name}` };
          }),
        );
      }
      options.push(
        fc
          .tuple(valid, fc.string({ minLength: 1, maxLength: 12 }))
          .filter(([, key]) => !(key in properties))
          .map(([value, key]) => ({ value: { ...value, [key]: 'extra' }, breaks: `unknown field ${key}` })),
      );
      for (const [name, property] of Object.entries(properties)) {
        options.push(
          fc
            .tuple(valid, invalidValue(property))
            .map(([value, bad]) => ({ value: { ...value, [name]: bad.value }, breaks: `${name}: ${bad.breaks}` })),
        );
      }
      break;
    }
  }
  return fc.oneof(...options);
}

/** JSON text with bigints written as exact integer literals. */
export function toJson(value: unknown): string {
  const marker = '~int64~';
  return JSON.stringify(value, (_key, item: unknown) => (typeof item === 'bigint' ? `${marker}${item}` : item)).replace(
    /"~int64~(-?\d+)"/g,
    '$1',
  );
}
