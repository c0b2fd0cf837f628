// Request validation compiled from the contract's schemas with Ajv (JSON Schema 2020-12, as OpenAPI 3.1 uses).
// Bodies are validated strictly, with no coercion at all; path and query strings are coerced to their declared
// types because they only ever arrive as text. int64 values are checked exactly, never through a rounded number.

import { INT64_RANGE_MESSAGE, INTEGER_TEXT, toInt64 } from '@plant-store/contract';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { DataValidationCxt, ErrorObject } from 'ajv/dist/types/index.js';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance, FastifySchemaCompiler } from 'fastify';

// ajv-formats is CommonJS with a default export; NodeNext sees the module object.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

type Schema = Record<string, unknown>;

// Replaces every `{type: integer, format: int64}` with the exact `int64` keyword below, keeping its annotations.
function withExactInt64(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withExactInt64);
  if (schema === null || typeof schema !== 'object') return schema;
  const source = schema as Schema;
  if (source.type === 'integer' && source.format === 'int64') {
    const { type: _type, format: _format, minimum: _min, maximum: _max, ...rest } = source;
    return { ...rest, int64: true };
  }
  return Object.fromEntries(Object.entries(source).map(([key, value]) => [key, withExactInt64(value)]));
}

function createAjv(coerce: boolean): Ajv2020 {
  const ajv = new Ajv2020({
    strict: false,
    allErrors: false,
    coerceTypes: coerce,
    useDefaults: true,
    removeAdditional: false,
    validateFormats: true,
  });
  addFormats(ajv, ['int32', 'date-time', 'uri']);
  ajv.addKeyword({
    keyword: 'int64',
    modifying: true,
    errors: true,
    validate: function int64(
      this: unknown,
      _enabled: boolean,
      data: unknown,
      _schema?: unknown,
      ctx?: DataValidationCxt,
    ) {
      const exact = toInt64(data, coerce);
      if (exact === undefined) {
        (int64 as unknown as { errors: unknown[] }).errors = [
          { keyword: 'int64', message: INT64_RANGE_MESSAGE, params: {}, instancePath: ctx?.instancePath ?? '' },
        ];
        return false;
      }
      // Text from the path or query becomes the exact number or bigint the handler expects.
      if (ctx?.parentData !== undefined && ctx.parentDataProperty !== undefined) {
        (ctx.parentData as Record<string | number, unknown>)[ctx.parentDataProperty] = exact;
      }
      return true;
    },
  });
  return ajv;
}

/** A Fastify validator compiler: strict for bodies, coercing for params, querystring and headers. */
function createValidatorCompiler(): FastifySchemaCompiler<unknown> {
  const strict = createAjv(false);
  const coercing = createAjv(true);
  return ({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? strict : coercing;
    const validate = ajv.compile(withExactInt64(schema) as Schema);
    if (httpPart === 'body') return validate;
    // Coercion turns text into numbers the way Number() does: 0x3, " 3", 3.0, 3e0 and +3 would all be 3. An integer
    // parameter is decimal integer text and nothing else.
    const properties = (schema as { properties?: Record<string, Schema> }).properties ?? {};
    const integers = Object.keys(properties).filter((name) => properties[name]?.type === 'integer');
    if (integers.length === 0) return validate;
    const checked = (data: unknown) => {
      const record = data as Record<string, unknown> | null;
      for (const name of integers) {
        const value = record?.[name];
        if (typeof value === 'string' && !INTEGER_TEXT.test(value)) {
          checked.errors = [
            { keyword: 'type', instancePath: `/${name}`, params: { type: 'integer' }, schemaPath: '' },
          ] as ErrorObject[];
          return false;
        }
      }
      const valid = validate(data);
      checked.errors = validate.errors;
      return valid;
    };
    checked.errors = null as ErrorObject[] | null | undefined;
    return checked;
  };
}

/** Validates every request against the contract's schemas with the compiler above. */
export function registerValidation(app: FastifyInstance): void {
  app.setValidatorCompiler(createValidatorCompiler());
}
