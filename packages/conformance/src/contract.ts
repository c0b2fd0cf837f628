// The contract as the conformance run needs it: the operations, their parameters and body with their bounds, scopes
// and roles in the resource's life (creates, lists or deletes plants, learnt from the contract's links; reads or
// updates one, from method and path) from the facts
// `pnpm gen` generates (@plant-store/contract); the answers' schemas and headers from openapi.yaml itself (the same
// document the service binds), its local $refs resolved.
import {
  type BodyFacts,
  LINKS,
  type LinkFacts,
  OPERATIONS,
  type OperationFacts,
  type ValueFacts,
} from '@plant-store/contract';
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
  /** The schema of every header the answer declares, by lower-case name (present or not). */
  headerSchemas: Record<string, Schema>;
  /** The JSON schema of the body, or undefined when the answer declares no body. */
  schema: Schema | undefined;
}

/** What an operation does to the plants: the stateful checks and the reserved ids follow from it. A by-id `read` or
 * `update` of a plant the principal does not have (never created, or deleted) is a 404. */
export type Role = 'create' | 'list' | 'read' | 'update' | 'delete' | 'other';

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

/** A parameter's or body field's generated facts as the JSON schema the generators and checks read. */
function schemaOf(facts: ValueFacts): Schema {
  const { type, format, minLength, maxLength, pattern, minimum, maximum, default: fallback } = facts;
  const schema: Schema = { type, format, minLength, maxLength, pattern, minimum, maximum, default: fallback };
  for (const key of Object.keys(schema)) if (schema[key] === undefined) delete schema[key];
  return schema;
}

/** The request body an operation takes, from its generated facts: its fields, the required ones, closed or not. */
function bodySchemaOf(body: BodyFacts): Schema {
  return {
    type: 'object',
    properties: Object.fromEntries(
      body.fields.map(({ name, required: _required, ...field }) => [name, schemaOf(field)]),
    ),
    required: body.fields.filter((field) => field.required).map((field) => field.name),
    ...(body.closed ? { additionalProperties: false } : {}),
  };
}

/** Whether an operation names one plant by its id (delete, read, update): a plant the principal has, or a 404. */
export const namesOnePlant = (role: Role): boolean => role === 'delete' || role === 'read' || role === 'update';

/** The methods that read and update one plant, at the path of the plant the delete names. */
const BY_ID_ROLES: Partial<Record<OperationFacts['method'], Role>> = { GET: 'read', PUT: 'update', PATCH: 'update' };

/**
 * Each operation's role, from the contract's links: an operation whose success links to a DELETE fed from its request
 * body creates, that DELETE deletes, and the GET it links to lists. Then from method and path: a GET of the deleted
 * plant's path reads one plant, a PUT or PATCH of it updates one.
 */
export function rolesOf(operations: readonly OperationFacts[], links: readonly LinkFacts[]): Map<string, Role> {
  const roles = new Map<string, Role>();
  const facts = (operationId: string) => operations.find((operation) => operation.operationId === operationId);
  for (const link of links) {
    const fromBody = Object.values(link.parameters).some((value) => value.startsWith('$request.body#/'));
    if (facts(link.operationId)?.method === 'DELETE' && fromBody) {
      roles.set(link.from, 'create');
      roles.set(link.operationId, 'delete');
    }
  }
  for (const link of links) {
    if (roles.get(link.from) === 'create' && facts(link.operationId)?.method === 'GET') {
      roles.set(link.operationId, 'list');
    }
  }
  const itemPaths = new Set(
    [...roles].filter(([, role]) => role === 'delete').map(([operationId]) => facts(operationId)?.path),
  );
  for (const operation of operations) {
    const role = BY_ID_ROLES[operation.method];
    if (role && !roles.has(operation.operationId) && itemPaths.has(operation.path))
      roles.set(operation.operationId, role);
  }
  return roles;
}

/** Where the contract comes from: the service's own openapi.yaml and its generated facts unless given (a test of a
 * contract change gives a scratch document and the facts generated from it). */
export interface ContractSource {
  path?: string | URL;
  operations?: readonly OperationFacts[];
  links?: readonly LinkFacts[];
}

/**
 * The contract, ready for generating and checking: the operations, their parameters, bounds, scopes and roles from the
 * generated facts (@plant-store/contract, unless given), and from the document (the service's own openapi.yaml unless
 * `path` is given) what the facts leave to it: the answers' schemas and headers, header parameters, descriptions, the
 * version.
 */
export function loadConformanceContract({
  path,
  operations: operationFacts = OPERATIONS,
  links = LINKS,
}: ContractSource = {}): ConformanceContract {
  const { document: raw } = path === undefined ? readOpenApiDocument() : readOpenApiDocument(path);
  const document = resolveRefs(raw);
  const paths = (document.paths ?? {}) as Record<string, Record<string, Record<string, unknown>>>;
  const roles = rolesOf(operationFacts, links);
  const operations = operationFacts.map((facts): ContractOperation => {
    const pathItem = paths[facts.path] ?? {};
    const operation = pathItem[facts.method.toLowerCase()] ?? {};
    const declared = [
      ...((pathItem.parameters as Parameter[] | undefined) ?? []),
      ...((operation.parameters as Parameter[] | undefined) ?? []),
    ];
    const description = (name: string) => String(declared.find((p) => p.name === name)?.description ?? '');
    const parameters: Parameter[] = [
      ...facts.parameters.map(({ name, in: where, required, ...value }) => ({
        name,
        in: where,
        required,
        schema: schemaOf(value),
        description: description(name),
      })),
      // Header parameters (Idempotency-Key, If-None-Match) are not among the facts: the document states them.
      ...declared
        .filter((p) => p.in === 'header')
        .map((p) => ({
          name: p.name,
          in: p.in,
          required: p.required === true,
          schema: p.schema ?? {},
          description: String(p.description ?? ''),
        })),
    ];
    const responses: Record<string, ResponseSpec> = {};
    for (const [code, response] of Object.entries(
      (operation.responses ?? {}) as Record<string, Record<string, unknown>>,
    )) {
      const content = response.content as Record<string, { schema?: Schema }> | undefined;
      const declaredHeaders = (response.headers as Record<string, { schema?: Schema }> | undefined) ?? {};
      responses[code] = {
        description: String(response.description ?? ''),
        // Only the headers the contract marks `required` are promised on every such answer (OpenAPI's default is
        // false: Idempotent-Replayed, say, comes only with a replay); the checks add WWW-Authenticate and Retry-After.
        headers: Object.entries((response.headers as Record<string, { required?: boolean }> | undefined) ?? {})
          .filter(([, header]) => header?.required === true)
          .map(([name]) => name.toLowerCase()),
        headerSchemas: Object.fromEntries(
          Object.entries(declaredHeaders).map(([name, header]) => [name.toLowerCase(), header?.schema ?? {}]),
        ),
        schema: content ? (content['application/json']?.schema ?? {}) : undefined,
      };
    }
    const successCode = Object.keys(responses).find((code) => /^2\d\d$/.test(code)) ?? '200';
    return {
      operationId: facts.operationId,
      method: facts.method,
      path: facts.path,
      parameters,
      body: facts.body ? bodySchemaOf(facts.body) : undefined,
      bodyRequired: facts.body?.required === true,
      responses,
      scope: facts.scope ?? undefined,
      secured: facts.security.length > 0,
      role: roles.get(facts.operationId) ?? 'other',
      successStatus: Number(successCode),
    };
  });
  const info = document.info as { version?: string } | undefined;
  return {
    version: info?.version ?? 'unknown',
    operations,
    byRole: (role) => operations.find((operation) => operation.role === role),
  };
}
