// Small helpers over an OpenAPI 3.1 document, shared by the server, the contract checks and the test tooling:
// the HTTP methods a path item may hold, a walk over its operations, and allOf flattening. No Node or DOM APIs.

/** The methods an OpenAPI path item may declare operations under, in the specification's order. */
export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export type HttpMethod = (typeof HTTP_METHODS)[number];

export interface OperationEntry<Operation> {
  /** The path template, e.g. /plants/{id}. */
  path: string;
  method: HttpMethod;
  operation: Operation;
  pathItem: Readonly<Record<string, unknown>>;
}

/** Every operation of `document`, path by path and, within a path, in HTTP_METHODS order. */
export function operationsOf<Operation = Record<string, unknown>>(document: {
  paths?: unknown;
}): OperationEntry<Operation>[] {
  const entries: OperationEntry<Operation>[] = [];
  for (const [path, pathItem] of Object.entries((document.paths ?? {}) as Record<string, Record<string, unknown>>)) {
    for (const method of HTTP_METHODS) {
      const operation = pathItem?.[method];
      if (operation) entries.push({ path, method, operation: operation as Operation, pathItem });
    }
  }
  return entries;
}

type Schema = Record<string, unknown>;

// Where several allOf parts bound the same keyword, the tightest bound is the one that holds.
const LOWER_BOUNDS = ['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties'];
const UPPER_BOUNDS = ['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties'];

/**
 * One view of a schema with its allOf parts merged in: properties, required names, the first type and the tightest
 * bounds. `true` (or no schema) is `{}`, `false` is `{ not: {} }`.
 */
export function flattenAllOf(input: unknown): Schema {
  if (input === true || input === undefined) return {};
  if (input === false) return { not: {} };
  const schema = input as Schema;
  const parts = schema.allOf as unknown[] | undefined;
  if (!parts?.length) return schema;
  const merged: Schema = { ...schema, properties: { ...(schema.properties as object) } };
  delete merged.allOf;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  for (const part of parts.map(flattenAllOf)) {
    for (const [key, value] of Object.entries(part)) {
      const current = merged[key];
      if (key === 'properties') Object.assign(merged.properties as object, value);
      else if (key === 'required') for (const name of value as string[]) required.add(name);
      else if (current === undefined) merged[key] = value;
      else if (typeof value === 'number' && typeof current === 'number') {
        if (LOWER_BOUNDS.includes(key)) merged[key] = Math.max(current, value);
        if (UPPER_BOUNDS.includes(key)) merged[key] = Math.min(current, value);
      }
    }
  }
  merged.required = [...required];
  return merged;
}
