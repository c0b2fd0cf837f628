// The contract's OpenAPI links (added in 1.3.0) lead somewhere real: every link names an operationId of the document,
// every parameter it sets is one the target declares, and every runtime expression points at a field or parameter
// the source operation really has, of the same type as the parameter it feeds. Then the links issue 18 asked for.
import { readOpenApiDocument } from '@plant-store/contract/document';
import { describe, expect, it } from 'vitest';
import { flattenAllOf, operationsOf } from '../src/index.js';

type Schema = Record<string, unknown>;
interface Parameter {
  name: string;
  in: string;
  schema?: Schema;
}
interface Link {
  operationId?: string;
  operationRef?: string;
  parameters?: Record<string, unknown>;
  requestBody?: unknown;
}
type Content = Record<string, { schema?: Schema }>;
interface Response {
  links?: Record<string, Link>;
  content?: Content;
}
interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content?: Content };
  responses?: Record<string, Response>;
}

const { document } = readOpenApiDocument();

/** A local $ref's target (JSON pointer into the document). */
function target(ref: string): unknown {
  expect(ref, 'only local references').toMatch(/^#\//);
  return ref
    .slice(2)
    .split('/')
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], document);
}

/** `value` with every $ref replaced by what it names (the document has no cycles). */
function resolve(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(resolve);
  if (value === null || typeof value !== 'object') return value;
  const ref = (value as Schema).$ref;
  if (typeof ref === 'string') return resolve(target(ref));
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, resolve(inner)]));
}

/** The schema at a JSON pointer (`/id`, `/a/b`) inside `schema`, walking object properties (allOf merged). */
function schemaAt(schema: unknown, pointer: string): Schema | undefined {
  let node = flattenAllOf(resolve(schema));
  for (const part of pointer.split('/').slice(1)) {
    const next = (node.properties as Record<string, unknown> | undefined)?.[part];
    if (next === undefined) return undefined;
    node = flattenAllOf(resolve(next));
  }
  return node;
}

const operations = operationsOf<Operation>(document).map((entry) => ({
  ...entry,
  parameters: resolve([
    ...((entry.pathItem.parameters as unknown[] | undefined) ?? []),
    ...(entry.operation.parameters ?? []),
  ]) as Parameter[],
}));
const byId = new Map(operations.map((entry) => [entry.operation.operationId, entry]));

/** The schema a runtime expression (OpenAPI 3.1 §4.8.20.4) names, for an exchange of `source` answered `status`. */
function schemaOfExpression(expression: string, source: (typeof operations)[number], status: string): Schema {
  const body = /^\$(request|response)\.body#(\/.*)$/.exec(expression);
  if (body) {
    const [, side, pointer] = body as unknown as [string, 'request' | 'response', string];
    const content =
      side === 'request'
        ? source.operation.requestBody?.content
        : (resolve(source.operation.responses?.[status]) as Response | undefined)?.content;
    const schema = content?.['application/json']?.schema;
    expect(schema, `${expression}: ${source.operation.operationId} has a JSON ${side} body`).toBeDefined();
    const found = schemaAt(schema, pointer);
    expect(found, `${expression}: the ${side} body of ${source.operation.operationId} has ${pointer}`).toBeDefined();
    return found as Schema;
  }
  const parameter = /^\$request\.(path|query|header)\.(.+)$/.exec(expression);
  expect(parameter, `${expression} is a runtime expression this test knows`).not.toBeNull();
  const [, location, name] = parameter as unknown as [string, string, string];
  const declared = source.parameters.find(
    (candidate) => candidate.in === location && candidate.name.toLowerCase() === name.toLowerCase(),
  );
  expect(declared, `${expression}: ${source.operation.operationId} declares it`).toBeDefined();
  return flattenAllOf(declared?.schema);
}

const links = operations.flatMap((source) =>
  Object.entries(source.operation.responses ?? {}).flatMap(([status, response]) =>
    Object.entries((resolve(response) as { links?: Record<string, Link> }).links ?? {}).map(([name, link]) => ({
      source,
      status,
      name,
      link: resolve(link) as Link,
    })),
  ),
);

describe('the links of openapi.yaml', () => {
  it('are declared (the check below must not pass on an empty list)', () => {
    expect(links.length).toBeGreaterThanOrEqual(2);
  });

  it.each(links.map((entry) => [`${entry.source.operation.operationId} ${entry.status} ${entry.name}`, entry]))(
    '%s leads to a real operation, setting only parameters it declares, from values the source really has',
    (_label, { source, status, link }) => {
      expect(link.operationRef, 'links name their target by operationId').toBeUndefined();
      const destination = byId.get(link.operationId ?? '');
      expect(destination, `operationId ${link.operationId} exists`).toBeDefined();
      for (const [name, expression] of Object.entries(link.parameters ?? {})) {
        const parameter = destination?.parameters.find((candidate) => candidate.name === name.replace(/^\w+\./, ''));
        expect(parameter, `${link.operationId} declares the parameter ${name}`).toBeDefined();
        expect(typeof expression, 'a runtime expression').toBe('string');
        const from = schemaOfExpression(expression as string, source, status);
        const to = flattenAllOf(parameter?.schema);
        expect({ type: from.type, format: from.format }, `${expression} has the type of ${name}`).toEqual({
          type: to.type,
          format: to.format,
        });
      }
      // Every required parameter of the target is set by the link.
      for (const parameter of destination?.parameters ?? []) {
        if ((parameter as Parameter & { required?: boolean }).required) {
          expect(Object.keys(link.parameters ?? {}), `${link.operationId} needs ${parameter.name}`).toContain(
            parameter.name,
          );
        }
      }
    },
  );

  it("chain createPlant's 200 to deletePlant with the id the request sent, and to getPlants", () => {
    const created = links.filter((entry) => entry.source.operation.operationId === 'createPlant');
    expect(created.map((entry) => [entry.status, entry.name, entry.link])).toEqual([
      [
        '200',
        'DeletePlant',
        expect.objectContaining({ operationId: 'deletePlant', parameters: { id: '$request.body#/id' } }),
      ],
      ['200', 'GetPlants', expect.objectContaining({ operationId: 'getPlants' })],
    ]);
  });
});
