// The requests a run generates from the contract, valid and invalid, as fast-check arbitraries of plans: which
// operation, which values for its parameters and body (drawn from their schemas, ids from the reserved block), which
// credentials, and what kind of request that makes. Whether a valid write must succeed, conflict or find nothing is
// decided when it is sent, from the model of what the run created (run-plan.ts).
import { INT64_MAX, INT64_MIN, INTEGER_TEXT } from '@plant-store/contract';
import fc from 'fast-check';
import { type ContractOperation, namesOnePlant, type Parameter, type Schema } from './contract.js';
import type { OutgoingRequest, Principal } from './http-client.js';
import type { ReservedRange } from './reserved-ids.js';
import { brokenRule, invalidValue, RawNumber, toJson, validValue } from './schema-arbitraries.js';

/** The values of one request, before they are written into a URL and a body. */
export interface Shape {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  /** The body as a value (written with toJson), or the exact text to send. */
  body?: unknown;
  bodyText?: string;
  contentType?: string;
}

export type Credentials =
  | { kind: 'token'; principal: Principal }
  | { kind: 'none' }
  | { kind: 'wrong'; authorization: string };

export type PlanKind =
  /** Every value valid: success, or a 409 / 404 the model predicts. */
  | 'valid'
  /** A by-id request (delete, read, update) of a plant the run created (picked when sent). */
  | 'created-id'
  /** One value breaks one rule of its schema: 400. */
  | 'invalid'
  /** An opaque parameter (a cursor) the service never issued, valid by its schema: 200 or 400 are both right. */
  | 'forged-opaque'
  /** A query parameter the contract does not declare. */
  | 'unknown-parameter'
  /** A body that is not JSON: 400. */
  | 'malformed-body'
  /** A body in another media type: 415. */
  | 'media-type'
  /** A body beyond the contract's size: 413. */
  | 'oversized'
  /** No token, or a wrong or malformed one: 401. */
  | 'unauthenticated'
  /** A token without the scope the operation requires: 403. */
  | 'insufficient-scope'
  /** HEAD where GET is served: the same status, no body. */
  | 'head';

export interface Plan {
  operation: ContractOperation;
  kind: PlanKind;
  shape: Shape;
  credentials: Credentials;
  /** What makes it invalid, when it is, labelled by brokenRule: `body name: maxLength`, `query limit: minimum`,
   * `path id: type`, `body: type`, `body: truncated JSON`. */
  breaks?: string;
}

/** An opaque parameter: the contract calls it so (a cursor); the run only ever passes back what it was given. */
export const isOpaque = (parameter: Parameter) =>
  /\bopaque\b/i.test(`${parameter.description} ${String(parameter.schema.description ?? '')}`);

const encode = (value: unknown) => encodeURIComponent(String(value));

/** The request a plan sends. */
export function render(plan: Plan): OutgoingRequest {
  const { operation, shape, credentials } = plan;
  let target = operation.path.replace(/\{([^}]+)\}/g, (_all, name: string) => encode(shape.path[name]));
  const query = Object.entries(shape.query).filter(([, value]) => value !== undefined);
  if (query.length > 0) target += `?${query.map(([name, value]) => `${encode(name)}=${encode(value)}`).join('&')}`;
  const request: OutgoingRequest = { method: plan.kind === 'head' ? 'HEAD' : operation.method, target };
  if (credentials.kind === 'token') request.principal = credentials.principal;
  if (credentials.kind === 'wrong') request.authorization = credentials.authorization;
  const body = shape.bodyText ?? (shape.body === undefined ? undefined : toJson(shape.body));
  if (body !== undefined) {
    request.body = body;
    request.headers = { 'content-type': shape.contentType ?? 'application/json' };
  }
  return request;
}

export interface GenerationContext {
  range: ReservedRange;
  /** Tokens that may write (token, second-token), and whether a read-only token was given. */
  writers: Principal[];
  readToken: boolean;
  readOnly: boolean;
  /** The body size beyond which the contract answers 413, when it says. */
  bodyLimit: number | undefined;
}

const printable = fc.string({
  unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/='),
  minLength: 1,
  maxLength: 60,
});

/** Credentials a service must refuse with 401: none, a made-up bearer token, other schemes, a bare word. */
export const unauthenticated: fc.Arbitrary<Credentials> = fc.oneof(
  fc.constant<Credentials>({ kind: 'none' }),
  printable.map((token): Credentials => ({ kind: 'wrong', authorization: `Bearer ${token}` })),
  printable.map((token): Credentials => ({ kind: 'wrong', authorization: `Basic ${token}` })),
  fc.constantFrom<Credentials>(
    { kind: 'wrong', authorization: 'Bearer' },
    { kind: 'wrong', authorization: 'bearer-token' },
  ),
);

/** A parameter's value that breaks one rule of its schema, with the rule. */
interface BrokenParameter {
  value: unknown;
  rule: string;
}

/** The int64 values of path and query parameters as text a lenient server might still read, all in the block. */
function invalidIdTexts(range: ReservedRange): fc.Arbitrary<BrokenParameter> {
  return fc.oneof(
    range.arbitrary.chain((id) =>
      fc.constantFrom(
        { value: `${id}.0`, rule: 'type' },
        { value: `${id}.5`, rule: 'type' },
        { value: `${id}e0`, rule: 'type' },
        { value: `0${id < 0n ? id + 0n : id}`.replace('0-', '-0'), rule: 'type' },
        { value: `+${id}`, rule: 'type' },
        { value: ` ${id}`, rule: 'type' },
        { value: `${id}abc`, rule: 'type' },
        { value: `0x${id.toString(16)}`, rule: 'type' },
      ),
    ),
    fc.constantFrom(
      { value: String(INT64_MAX + 1n), rule: 'int64 range' },
      { value: String(INT64_MIN - 1n), rule: 'int64 range' },
      { value: '1'.repeat(40), rule: 'int64 range' },
      { value: 'abc', rule: 'type' },
      { value: 'true', rule: 'type' },
      { value: 'null', rule: 'type' },
    ),
  );
}

/** A parameter's value as it travels (text): a type error that still reads as valid text is no error on the wire. */
function invalidParameter(parameter: Parameter, range: ReservedRange): fc.Arbitrary<BrokenParameter> {
  const schema = parameter.schema;
  if (schema.type === 'integer' && schema.format === 'int64') return invalidIdTexts(range);
  return invalidValue(schema, { int64: range.arbitrary })
    .filter(({ value }) => value !== null && typeof value !== 'object' && String(value) !== '')
    .filter(({ value, rule }) => {
      if (rule !== 'type') return true;
      // "12" is an integer on the wire; 5 or true are strings there.
      return schema.type === 'integer' ? !INTEGER_TEXT.test(String(value)) : false;
    });
}

/** Valid values for every parameter and the body of `operation` (opaque parameters left out). */
export function validShape(operation: ContractOperation, range: ReservedRange): fc.Arbitrary<Shape> {
  const options = { int64: range.arbitrary };
  const path = operation.parameters.filter((p) => p.in === 'path');
  const query = operation.parameters.filter((p) => p.in === 'query' && !isOpaque(p));
  return fc.record({
    path: fc.record(Object.fromEntries(path.map((p) => [p.name, validValue(p.schema, options)]))),
    query: fc.record(
      Object.fromEntries(
        query.map((p) => [
          p.name,
          p.required ? validValue(p.schema, options) : fc.option(validValue(p.schema, options), { nil: undefined }),
        ]),
      ),
    ),
    ...(operation.body ? { body: validValue(operation.body, options) } : {}),
  }) as fc.Arbitrary<Shape>;
}

/** Every kind of request for `operation`, weighted; writes only where the run may write. */
export function plansFor(operation: ContractOperation, context: GenerationContext): fc.Arbitrary<Plan> {
  const { range } = context;
  const valid = validShape(operation, range);
  const writer = context.readOnly ? fc.constant<Principal>('token') : fc.constantFrom(...context.writers);
  const own = writer.map((principal): Credentials => ({ kind: 'token', principal }));
  const plan = (
    kind: PlanKind,
    shape: fc.Arbitrary<Shape>,
    credentials: fc.Arbitrary<Credentials> = own,
    breaks?: fc.Arbitrary<string>,
  ) =>
    fc.record({ shape, credentials, breaks: breaks ?? fc.constant(undefined) }).map(
      ({ shape, credentials, breaks }): Plan => ({
        operation,
        kind,
        shape,
        credentials,
        ...(breaks ? { breaks } : {}),
      }),
    );
  const choices: { weight: number; arbitrary: fc.Arbitrary<Plan> }[] = [
    { weight: 8, arbitrary: plan('valid', valid) },
    { weight: 2, arbitrary: plan('unauthenticated', valid, unauthenticated) },
  ];
  for (const parameter of operation.parameters.filter((p) => p.in === 'path' || p.in === 'query')) {
    const broken = isOpaque(parameter)
      ? fc.oneof(
          fc
            .string({ maxLength: 80 })
            .filter((text) => text !== '' && !new RegExp(String(parameter.schema.pattern ?? '.'), 'u').test(text))
            .map((value) => ({ value, rule: 'pattern' })),
          fc.constant({ value: 'x'.repeat(Number(parameter.schema.maxLength ?? 64) + 1), rule: 'maxLength' }),
        )
      : invalidParameter(parameter, range);
    choices.push({
      weight: 3,
      arbitrary: fc.tuple(valid, broken, own).map(
        ([shape, bad, credentials]): Plan => ({
          operation,
          kind: 'invalid',
          shape: {
            ...shape,
            [parameter.in]: { ...shape[parameter.in as 'path' | 'query'], [parameter.name]: bad.value },
          },
          credentials,
          breaks: brokenRule(bad.rule, parameter.name, parameter.in as 'path' | 'query'),
        }),
      ),
    });
    if (isOpaque(parameter)) {
      choices.push({
        weight: 1,
        arbitrary: fc.tuple(valid, validValue(parameter.schema), own).map(
          ([shape, value, credentials]): Plan => ({
            operation,
            kind: 'forged-opaque',
            shape: { ...shape, query: { ...shape.query, [parameter.name]: value } },
            credentials,
          }),
        ),
      });
    }
  }
  if (operation.method === 'GET') {
    choices.push(
      { weight: 1, arbitrary: plan('head', valid) },
      {
        weight: 1,
        arbitrary: fc
          .tuple(
            valid,
            fc.constantFrom('color', 'sort', 'page', 'offset', 'access-token-hint', 'LIMIT'),
            fc.constantFrom('1', 'red', 'name'),
            own,
          )
          .map(
            ([shape, name, value, credentials]): Plan => ({
              operation,
              kind: 'unknown-parameter',
              shape: { ...shape, query: { ...shape.query, [name]: value } },
              credentials,
            }),
          ),
      },
    );
  }
  if (operation.body) {
    choices.push(
      {
        weight: 4,
        arbitrary: fc.tuple(valid, invalidValue(operation.body, { int64: range.arbitrary }), own).map(
          ([shape, bad, credentials]): Plan => ({
            operation,
            kind: 'invalid',
            shape: { ...shape, body: bad.value },
            credentials,
            breaks: brokenRule(bad.rule, bad.field, 'body'),
          }),
        ),
      },
      {
        weight: 1,
        arbitrary: fc.tuple(valid, fc.integer({ min: 1, max: 20 }), own).map(([shape, cut, credentials]): Plan => {
          const text = toJson(shape.body);
          return {
            operation,
            kind: 'malformed-body',
            shape: { ...shape, bodyText: text.slice(0, Math.max(0, text.length - cut)) },
            credentials,
            breaks: brokenRule('truncated JSON', undefined, 'body'),
          };
        }),
      },
      {
        weight: 1,
        arbitrary: fc
          .tuple(valid, fc.constantFrom('text/plain', 'application/xml', 'application/x-www-form-urlencoded'), own)
          .map(
            ([shape, contentType, credentials]): Plan => ({
              operation,
              kind: 'media-type',
              shape: { ...shape, contentType },
              credentials,
            }),
          ),
      },
    );
    if (context.bodyLimit !== undefined) {
      const limit = context.bodyLimit;
      choices.push({
        weight: 1,
        arbitrary: fc
          .tuple(valid, fc.integer({ min: limit + 1, max: limit * 2 }), own)
          .map(([shape, size, credentials]): Plan => {
            const text = toJson({ ...(shape.body as object), name: 'x' });
            return {
              operation,
              kind: 'oversized',
              shape: { ...shape, bodyText: `${text.slice(0, -1)}, "padding": "${'x'.repeat(size)}"}` },
              credentials,
            };
          }),
      });
    }
  }
  if (context.readToken && operation.scope && operation.scope !== 'read') {
    choices.push({
      weight: 1,
      arbitrary: plan(
        'insufficient-scope',
        valid,
        fc.constant<Credentials>({ kind: 'token', principal: 'read-token' }),
      ),
    });
  }
  if (namesOnePlant(operation.role)) choices.push({ weight: 4, arbitrary: plan('created-id', valid) });
  return fc.oneof(...choices);
}

/** Plans over every operation the run may call. */
export function plans(operations: ContractOperation[], context: GenerationContext): fc.Arbitrary<Plan> {
  const usable = operations.filter(
    (operation) => !(context.readOnly && operation.method !== 'GET' && operation.method !== 'HEAD'),
  );
  return fc.oneof(...usable.map((operation) => plansFor(operation, context)));
}

/** Values at and just beyond each bound of each parameter and body field, one per request, and a HEAD for a GET: the edges first. */
export function edgePlans(operation: ContractOperation, fresh: () => Shape): Plan[] {
  const out: Plan[] = [];
  const credentials: Credentials = { kind: 'token', principal: 'token' };
  const at = (kind: PlanKind, shape: Shape, breaks?: string) =>
    out.push({ operation, kind, shape, credentials, ...(breaks ? { breaks } : {}) });
  for (const parameter of operation.parameters.filter((p) => p.in === 'query' && !isOpaque(p))) {
    for (const [value, rule] of boundsOf(parameter.schema)) {
      const base = fresh();
      at(
        rule ? 'invalid' : 'valid',
        { ...base, query: { ...base.query, [parameter.name]: value } },
        rule && brokenRule(rule, parameter.name, 'query'),
      );
    }
  }
  // HEAD wherever GET is served, in every run (the generated plans pick it only now and then).
  if (operation.method === 'GET') at('head', fresh());
  if (operation.body) {
    const fields = flattenProperties(operation.body);
    for (const [name, schema] of Object.entries(fields)) {
      for (const [value, rule] of boundsOf(schema)) {
        const base = fresh();
        at(
          rule ? 'invalid' : 'valid',
          { ...base, body: { ...(base.body as object), [name]: value } },
          rule && brokenRule(rule, name, 'body'),
        );
      }
    }
  }
  return out;
}

function flattenProperties(schema: Schema): Record<string, Schema> {
  const all: Record<string, Schema> = { ...(schema.properties as Record<string, Schema> | undefined) };
  for (const part of (schema.allOf as Schema[] | undefined) ?? []) Object.assign(all, flattenProperties(part));
  return all;
}

/** [value, broken rule or undefined] at the edges of a schema's bounds. */
function boundsOf(schema: Schema): [unknown, string | undefined][] {
  const edges: [unknown, string | undefined][] = [];
  if (schema.type === 'integer' && schema.format !== 'int64') {
    if (typeof schema.minimum === 'number') edges.push([schema.minimum, undefined], [schema.minimum - 1, 'minimum']);
    if (typeof schema.maximum === 'number') edges.push([schema.maximum, undefined], [schema.maximum + 1, 'maximum']);
  }
  if (schema.type === 'string') {
    const min = schema.minLength as number | undefined;
    const max = schema.maxLength as number | undefined;
    if (min !== undefined && min > 0) edges.push(['x'.repeat(min), undefined], ['x'.repeat(min - 1), 'minLength']);
    if (max !== undefined) edges.push(['\u{1F335}'.repeat(max), undefined], ['y'.repeat(max + 1), 'maxLength']);
    if (typeof schema.pattern === 'string') {
      const pattern = new RegExp(schema.pattern, 'u');
      for (const probe of ['bad\u0000zero', 'bell\u0007', 'del\u007f', 'c1\u0085']) {
        if (!pattern.test(probe)) edges.push([probe, 'pattern']);
      }
    }
  }
  return edges;
}

export { RawNumber };
