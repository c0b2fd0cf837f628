// Codegen of the contract's runtime facts: openapi.yaml -> packages/contract/src/generated/operations.ts, the table of
// operations (method, path, scope, security, parameters and body with their bounds), the links of their success
// answers (which operation follows which: the conformance checker's model learns creates, lists and deletes from
// them), each operation's effect on its resource (list, read, create, update, delete), the body size limit (`x-body-limit-bytes`) and the limits by field name. The server, the SDK and its testing kit read them; none keeps
// a copy. Called by gen-types.ts, so `pnpm gen` writes it and `pnpm gen:check` fails when it is stale.
import {
  type BodyFacts,
  type FieldFacts,
  flattenAllOf,
  HTTP_METHODS,
  type LinkFacts,
  type OperationEffect,
  type OperationFacts,
  operationsOf,
  type ParameterFacts,
  type ValueFacts,
} from '@plant-store/contract';

type Schema = Record<string, unknown>;
type Document = Record<string, unknown> & { paths?: unknown; components?: { schemas?: Record<string, Schema> } };

const VALUE_KEYWORDS = [
  'type',
  'format',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'default',
] as const;

function resolveRef(document: Document, schema: unknown): Schema {
  const ref = (schema as Schema | undefined)?.$ref;
  if (typeof ref !== 'string') return (schema ?? {}) as Schema;
  const name = ref.replace('#/components/schemas/', '');
  const target = document.components?.schemas?.[name];
  if (!target) throw new Error(`gen: unresolved $ref ${ref}`);
  return target;
}

function resolveDeep(document: Document, schema: unknown): Schema {
  const resolved = resolveRef(document, schema);
  if (!Array.isArray(resolved.allOf)) return resolved;
  return { ...resolved, allOf: resolved.allOf.map((part) => resolveDeep(document, part)) };
}

function valueFacts(schema: Schema): ValueFacts {
  const facts: Record<string, unknown> = {};
  for (const keyword of VALUE_KEYWORDS) if (schema[keyword] !== undefined) facts[keyword] = schema[keyword];
  if (typeof facts.type !== 'string')
    throw new Error(`gen: a parameter or field without a type: ${JSON.stringify(schema)}`);
  return facts as unknown as ValueFacts;
}

function bodyFacts(document: Document, requestBody: Schema | undefined): BodyFacts | null {
  if (!requestBody) return null;
  const content = (requestBody.content as Record<string, { schema?: unknown }> | undefined)?.['application/json'];
  const ref = (content?.schema as Schema | undefined)?.$ref;
  const flat = flattenAllOf(resolveDeep(document, content?.schema));
  const required = new Set((flat.required as string[] | undefined) ?? []);
  const properties = (flat.properties ?? {}) as Record<string, Schema>;
  // Declared order of the allOf parts, then the required names: the order the service's validation reports them in.
  const fields: FieldFacts[] = Object.entries(properties).map(([name, schema]) => ({
    name,
    required: required.has(name),
    ...valueFacts(schema),
  }));
  return {
    required: requestBody.required === true,
    schema: typeof ref === 'string' ? ref.replace('#/components/schemas/', '') : '',
    fields,
    closed: flat.unevaluatedProperties === false || flat.additionalProperties === false,
  };
}

interface Operation {
  operationId: string;
  security?: Record<string, string[]>[];
  parameters?: Schema[];
  requestBody?: Schema;
  'x-required-scope'?: string;
  'x-effect'?: string;
}

const EFFECTS: readonly OperationEffect[] = ['list', 'read', 'create', 'update', 'delete'];

/** The operation's effect on its resource: its `x-effect`, or what its method does to the path (a collection or an item). */
function effectOf(path: string, method: string, operation: Operation): OperationEffect {
  const stated = operation['x-effect'];
  if (stated !== undefined) {
    if (!(EFFECTS as readonly string[]).includes(stated)) {
      throw new Error(`gen: ${operation.operationId}: x-effect must be one of ${EFFECTS.join(', ')}`);
    }
    return stated as OperationEffect;
  }
  const item = /\/\{[^/]+\}$/.test(path);
  const inferred = { get: item ? 'read' : 'list', post: 'create', put: 'update', patch: 'update', delete: 'delete' }[
    method
  ] as OperationEffect | undefined;
  if (!inferred) throw new Error(`gen: ${operation.operationId}: say what ${method} ${path} does with x-effect`);
  return inferred;
}

/** The facts of every operation of `document`, in path and method order. */
export function operationFacts(document: Document): OperationFacts[] {
  const globalSecurity = (document.security as Record<string, string[]>[] | undefined) ?? [];
  return operationsOf<Operation>(document).map(({ path, method, operation, pathItem }) => {
    // Header parameters (Idempotency-Key, If-None-Match) are not request rules of the kind these facts carry: the
    // service validates them from the document, and the testing kit checks them where it implements them (the
    // Idempotency-Key by @plant-store/core's statement of its schema, which a test holds equal to the document's).
    const declared = [...((pathItem.parameters as Schema[] | undefined) ?? []), ...(operation.parameters ?? [])];
    const parameters = declared
      .filter((parameter) => parameter.in !== 'header')
      .map((parameter): ParameterFacts => {
        if (parameter.in !== 'path' && parameter.in !== 'query') {
          throw new Error(`gen: ${operation.operationId}: parameters in ${String(parameter.in)} are not supported`);
        }
        return {
          name: String(parameter.name),
          in: parameter.in,
          required: parameter.required === true,
          ...valueFacts(resolveRef(document, parameter.schema)),
        };
      });
    return {
      operationId: operation.operationId,
      method: method.toUpperCase() as OperationFacts['method'],
      path,
      scope: (operation['x-required-scope'] ?? null) as OperationFacts['scope'],
      security: [...new Set((operation.security ?? globalSecurity).flatMap((requirement) => Object.keys(requirement)))],
      parameters,
      body: bodyFacts(document, operation.requestBody),
      effect: effectOf(path, method, operation),
    };
  });
}

/** The links every operation's success answers declare, in operation order. */
export function linkFacts(document: Document): LinkFacts[] {
  return operationsOf<Operation & { responses?: Record<string, Schema> }>(document).flatMap(({ operation }) =>
    Object.entries(operation.responses ?? {})
      .filter(([status]) => /^2\d\d$/.test(status))
      .flatMap(([, response]) =>
        Object.entries((response.links ?? {}) as Record<string, Schema>).map(([name, link]) => {
          if (typeof link.operationId !== 'string') {
            throw new Error(`gen: ${operation.operationId}: link ${name} must name its operation by operationId`);
          }
          return {
            from: operation.operationId,
            name,
            operationId: link.operationId,
            parameters: Object.fromEntries(
              Object.entries((link.parameters ?? {}) as Record<string, unknown>).map(([key, value]) => [
                key,
                String(value),
              ]),
            ),
          };
        }),
      ),
  );
}

type Bounds = Partial<Pick<ValueFacts, 'minLength' | 'maxLength' | 'pattern' | 'minimum' | 'maximum' | 'default'>>;

/** Every bounded parameter and body field, by name; one name must mean one set of bounds across the contract. */
export function limitsOf(operations: readonly OperationFacts[]): Record<string, Bounds> {
  const limits: Record<string, Bounds> = {};
  const values = operations.flatMap((operation) => [...operation.parameters, ...(operation.body?.fields ?? [])]);
  for (const { name, minLength, maxLength, pattern, minimum, maximum, default: fallback } of values) {
    const bounds: Bounds = { minLength, maxLength, pattern, minimum, maximum, default: fallback };
    for (const key of Object.keys(bounds) as (keyof Bounds)[]) if (bounds[key] === undefined) delete bounds[key];
    if (Object.keys(bounds).length === 0) continue;
    const seen = limits[name];
    if (seen && JSON.stringify(seen) !== JSON.stringify(bounds)) {
      throw new Error(`gen: "${name}" has two sets of bounds in the contract; give one of them another name`);
    }
    limits[name] = bounds;
  }
  return limits;
}

const HEADER = `/**
 * This file was generated by scripts/gen-facts.ts from openapi.yaml. Do not edit it by hand:
 * change openapi.yaml and run \`pnpm gen\`. \`pnpm gen:check\` fails when this file is stale.
 */
`;

/** The text of generated/operations.ts. */
export function generateFacts(document: Document): string {
  const bodyLimit = document['x-body-limit-bytes'];
  if (typeof bodyLimit !== 'number' || !Number.isInteger(bodyLimit) || bodyLimit <= 0) {
    throw new Error('gen: openapi.yaml must declare x-body-limit-bytes, a positive integer');
  }
  const operations = operationFacts(document);
  const json = (value: unknown) => JSON.stringify(value, null, 2);
  return `${HEADER}import type { LinkFacts, OperationFacts } from '../operation-facts.js';

/** The largest request body the service reads, in bytes (openapi.yaml \`x-body-limit-bytes\`); 413 beyond. */
export const BODY_LIMIT_BYTES = ${bodyLimit};

/** Every operation of the contract, in path and method order. */
export const OPERATIONS = ${json(operations)} as const satisfies readonly OperationFacts[];

/** The links of the operations' success answers: what a client calls next, fed from which part of the exchange. */
export const LINKS = ${json(linkFacts(document))} as const satisfies readonly LinkFacts[];

/** The bounds of every parameter and body field, by name. */
export const LIMITS = ${json(limitsOf(operations))} as const;

/** The methods the contract declares, in the order HTTP_METHODS lists them. */
export const CONTRACT_METHODS = ${json(HTTP_METHODS.map((m) => m.toUpperCase()).filter((m) => operations.some((o) => o.method === m)))} as const;
`;
}
