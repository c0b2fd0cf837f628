// The contract as the conformance run needs it: openapi.yaml (the same document the service binds, read from
// @plant-store/contract) with its local $refs resolved, and each operation's parameters, body, responses, scope and
// role in the resource's life (creates, lists or deletes plants), all read from the document.
import { flattenAllOf, operationsOf } from '@plant-store/contract';
import { readOpenApiDocument } from '@plant-store/contract/document';

export type Schema = Record<string, unknown>;

export interface Parameter {
  name: string;
  in: 'query' | 'path' | 'header' | 'cookie';
  required: boolean;
  schema: Schema;
  description: string;
}

export interface ResponseSpec {
  description: string;
  /** Header names the answer promises on every such answer (declared `required: true`), lower case. */
  headers: string[];
  /** The JSON schema of the body, or undefined when the answer declares no body. */
  schema: Schema | undefined;
}

/** What an operation does to the plants: the stateful checks and the reserved ids follow from it. */
export type Role = 'create' | 'list' | 'delete' | 'other';

export interface ContractOperation {
  operationId: string;
  /** Upper case. */
  method: string;
  /** The path template, e.g. /plants/{id}. */
  path: string;
  parameters: Parameter[];
  /** The application/json body schema, when the operation takes one. */
  body: Schema | undefined;
  bodyRequired: boolean;
  /** Declared statuses by code ('200', '404', 'default'). */
  responses: Record<string, ResponseSpec>;
  /** x-required-scope, when declared. */
  scope: string | undefined;
  /** Whether a bearer token is required. */
  secured: boolean;
  role: Role;
  /** The 2xx status the contract declares for success. */
  successStatus: number;
}

export interface ConformanceContract {
  version: string;
  operations: ContractOperation[];
  /** The operation by role (the first of each). */
  byRole(role: Exclude<Role, 'other'>): ContractOperation | undefined;
}

/** Resolves every local `$ref` (#/...) of `document`, leaving cycles out (the contract has none). */
export function resolveRefs(document: Record<string, unknown>): Record<string, unknown> {
  const lookup = (ref: string): unknown =>
    ref
      .slice(2)
      .split('/')
      .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], document);
  const resolve = (node: unknown, seen: string[]): unknown => {
    if (Array.isArray(node)) return node.map((item) => resolve(item, seen));
    if (node === null || typeof node !== 'object') return node;
    const record = node as Record<string, unknown>;
    if (typeof record.$ref === 'string' && record.$ref.startsWith('#/')) {
      if (seen.includes(record.$ref)) return {};
      const { $ref, ...siblings } = record;
      const target = resolve(lookup($ref), [...seen, $ref]) as Record<string, unknown>;
      return { ...target, ...(resolve(siblings, seen) as object) };
    }
    return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, resolve(value, seen)]));
  };
  return resolve(document, []) as Record<string, unknown>;
}

const isInt64 = (schema: Schema | undefined) => schema?.type === 'integer' && schema.format === 'int64';

function roleOf(method: string, parameters: Parameter[], body: Schema | undefined, ok: ResponseSpec | undefined): Role {
  const properties = (flattenAllOf(body).properties ?? {}) as Record<string, Schema>;
  if (method === 'POST' && Object.values(properties).some(isInt64)) return 'create';
  if (method === 'DELETE' && parameters.some((p) => p.in === 'path' && isInt64(p.schema))) return 'delete';
  if (method === 'GET' && ok?.schema?.type === 'array') return 'list';
  return 'other';
}

/** The contract at `path` (the service's own openapi.yaml unless given), ready for generating and checking. */
export function loadConformanceContract(path?: string | URL): ConformanceContract {
  const { document: raw } = path === undefined ? readOpenApiDocument() : readOpenApiDocument(path);
  const document = resolveRefs(raw);
  const globalSecurity = (document.security as unknown[] | undefined) ?? [];
  const operations = operationsOf<Record<string, unknown>>(document).map(
    ({ path: template, method, operation, pathItem }) => {
      const parameters = [
        ...((pathItem.parameters as Parameter[] | undefined) ?? []),
        ...((operation.parameters as Parameter[] | undefined) ?? []),
      ].map((p) => ({
        name: p.name,
        in: p.in,
        required: p.required === true,
        schema: p.schema ?? {},
        description: String(p.description ?? ''),
      }));
      const requestBody = operation.requestBody as
        | { required?: boolean; content?: Record<string, { schema?: Schema }> }
        | undefined;
      const responses: Record<string, ResponseSpec> = {};
      for (const [code, response] of Object.entries(
        (operation.responses ?? {}) as Record<string, Record<string, unknown>>,
      )) {
        const content = response.content as Record<string, { schema?: Schema }> | undefined;
        responses[code] = {
          description: String(response.description ?? ''),
          // Only the headers the contract marks `required` are promised on every such answer (OpenAPI's default is
          // false: Idempotent-Replayed, say, comes only with a replay); the checks add WWW-Authenticate and Retry-After.
          headers: Object.entries((response.headers as Record<string, { required?: boolean }> | undefined) ?? {})
            .filter(([, header]) => header?.required === true)
            .map(([name]) => name.toLowerCase()),
          schema: content ? (content['application/json']?.schema ?? {}) : undefined,
        };
      }
      const successCode = Object.keys(responses).find((code) => /^2\d\d$/.test(code)) ?? '200';
      const upper = method.toUpperCase();
      const body = requestBody?.content?.['application/json']?.schema;
      const security = (operation.security as unknown[] | undefined) ?? globalSecurity;
      return {
        operationId: String(operation.operationId),
        method: upper,
        path: template,
        parameters,
        body,
        bodyRequired: requestBody?.required === true,
        responses,
        scope: typeof operation['x-required-scope'] === 'string' ? operation['x-required-scope'] : undefined,
        secured: security.some((requirement) => Object.keys(requirement as object).length > 0),
        role: roleOf(upper, parameters, body, responses[successCode]),
        successStatus: Number(successCode),
      } satisfies ContractOperation;
    },
  );
  const info = document.info as { version?: string } | undefined;
  return {
    version: info?.version ?? 'unknown',
    operations,
    byRole: (role) => operations.find((operation) => operation.role === role),
  };
}
