// What a client built against the released contract relies on and a newer contract takes away or tightens.
// Both documents must be dereferenced (swagger-parser); requests may only get looser, responses only richer.
import { flattenAllOf, HTTP_METHODS, type HttpMethod } from '@plant-store/contract';

type Schema = Record<string, unknown>;
type Direction = 'request' | 'response';
type Requirement = Record<string, string[]>;

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: Schema;
}

interface Media {
  schema?: Schema;
}

interface Operation {
  operationId?: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: Record<string, Media> };
  responses?: Record<
    string,
    {
      content?: Record<string, Media>;
      headers?: Record<string, { schema?: Schema }>;
      links?: Record<string, { operationId?: string; operationRef?: string; parameters?: Record<string, unknown> }>;
    }
  >;
  security?: Requirement[];
  'x-required-scope'?: string;
}

type PathItem = { [method in HttpMethod]?: Operation } & { parameters?: Parameter[] };

interface Document {
  paths?: Record<string, PathItem>;
  security?: Requirement[];
}

// Formats whose values are a subset of another's: a request may widen to one, a response may narrow from one.
const WIDER_FORMAT: Record<string, string[]> = { int32: ['int64'], float: ['double'] };

/** The JSON types a schema admits; undefined when it admits any. */
function typesOf(schema: Schema): Set<string> | undefined {
  const type = schema.type;
  const types = new Set<string>(Array.isArray(type) ? type : typeof type === 'string' ? [type] : []);
  if (types.size === 0) {
    if (schema.properties) types.add('object');
    else if (schema.items) types.add('array');
    else return undefined;
  }
  if (schema.nullable === true) types.add('null');
  return types;
}

function admits(types: Set<string> | undefined, type: string): boolean {
  return !types || types.has(type) || (type === 'integer' && types.has('number'));
}

/** Whether `to` refuses a type that `from` admits. */
function typesLost(from: Set<string> | undefined, to: Set<string> | undefined): boolean {
  if (from === undefined) return to !== undefined;
  return [...from].some((type) => !admits(to, type));
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

function describeTypes(types: Set<string> | undefined): string {
  return types ? [...types].sort().join('|') : 'any';
}

interface Bound {
  value: number;
  exclusive: boolean;
}

// OpenAPI 3.0 spells an exclusive bound as a boolean beside minimum/maximum, 3.1 as a number of its own.
function bound(schema: Schema, inclusiveKey: string, exclusiveKey: string, lower: boolean): Bound | undefined {
  const inclusive = schema[inclusiveKey];
  const exclusive = schema[exclusiveKey];
  const candidates: Bound[] = [];
  if (typeof inclusive === 'number') candidates.push({ value: inclusive, exclusive: exclusive === true });
  if (typeof exclusive === 'number') candidates.push({ value: exclusive, exclusive: true });
  const tighter = (a: Bound, b: Bound) =>
    a.value === b.value ? (a.exclusive ? a : b) : (lower ? a.value > b.value : a.value < b.value) ? a : b;
  return candidates.reduce<Bound | undefined>((best, next) => (best ? tighter(best, next) : next), undefined);
}

function showBound(b: Bound | undefined): string {
  return b ? `${b.exclusive ? 'exclusive ' : ''}${b.value}` : 'none';
}

function boundTightened(was: Bound | undefined, now: Bound | undefined, lower: boolean): boolean {
  if (!now) return false;
  if (!was) return true;
  if (now.value !== was.value) return lower ? now.value > was.value : now.value < was.value;
  return now.exclusive && !was.exclusive;
}

/** Lines for what `next` breaks of `base`, each starting with `where`. */
function schemaChanges(base: unknown, next: unknown, where: string, dir: Direction): string[] {
  const comparison = new SchemaComparison();
  comparison.compare(base, next, where, dir);
  return comparison.out;
}

class SchemaComparison {
  readonly out: string[] = [];
  // Dereferenced documents may be circular: a pair already being compared further up is not entered again.
  private readonly active = new Map<object, Set<object>>();

  compare(baseSchema: unknown, nextSchema: unknown, where: string, dir: Direction): void {
    if (baseSchema === undefined || nextSchema === undefined) return;
    if (!isObject(baseSchema) || !isObject(nextSchema)) {
      this.compareNodes(flattenAllOf(baseSchema), flattenAllOf(nextSchema), where, dir);
      return;
    }
    const partners = this.active.get(baseSchema) ?? new Set<object>();
    if (partners.has(nextSchema)) return;
    this.active.set(baseSchema, partners.add(nextSchema));
    try {
      this.compareNodes(flattenAllOf(baseSchema), flattenAllOf(nextSchema), where, dir);
    } finally {
      partners.delete(nextSchema);
    }
  }

  private compareNodes(a: Schema, b: Schema, where: string, dir: Direction): void {
    if (!this.compareTypes(a, b, where, dir)) return;
    if (dir === 'request') this.requestConstraints(a, b, where);
    else if (
      a.format !== undefined &&
      a.format !== b.format &&
      !WIDER_FORMAT[String(b.format)]?.includes(String(a.format))
    ) {
      this.out.push(`${where}: format changed from ${String(a.format)} to ${String(b.format ?? 'none')}`);
    }
    this.compareProperties(a, b, where, dir);
    if (a.items !== undefined || b.items !== undefined) this.compare(a.items ?? {}, b.items ?? {}, `${where}[]`, dir);
    if (typeof a.additionalProperties === 'object' && typeof b.additionalProperties === 'object') {
      this.compare(a.additionalProperties, b.additionalProperties, `${where}{*}`, dir);
    }
    for (const keyword of ['oneOf', 'anyOf'] as const) this.compareAlternatives(a, b, keyword, where, dir);
  }

  /** False when the types differ in a breaking way, leaving nothing sensible to compare beneath. */
  private compareTypes(a: Schema, b: Schema, where: string, dir: Direction): boolean {
    const [typesA, typesB] = [typesOf(a), typesOf(b)];
    // A request must still accept every type it accepted; a response must not produce a type it never did.
    const lost = dir === 'request' ? typesLost(typesA, typesB) : typesLost(typesB, typesA);
    if (lost) this.out.push(`${where}: type changed from ${describeTypes(typesA)} to ${describeTypes(typesB)}`);
    return !lost;
  }

  private requestConstraints(a: Schema, b: Schema, where: string): void {
    const out = this.out;
    if (
      b.format !== undefined &&
      a.format !== b.format &&
      !WIDER_FORMAT[String(a.format)]?.includes(String(b.format))
    ) {
      out.push(`${where}: format changed from ${String(a.format ?? 'none')} to ${String(b.format)}`);
    }
    for (const [label, inclusive, exclusive, lower] of [
      ['minimum', 'minimum', 'exclusiveMinimum', true],
      ['maximum', 'maximum', 'exclusiveMaximum', false],
    ] as const) {
      const [was, now] = [bound(a, inclusive, exclusive, lower), bound(b, inclusive, exclusive, lower)];
      if (boundTightened(was, now, lower))
        out.push(`${where}: ${label} tightened from ${showBound(was)} to ${showBound(now)}`);
    }
    for (const key of ['minLength', 'minItems', 'minProperties', 'maxLength', 'maxItems', 'maxProperties']) {
      const lower = key.startsWith('min');
      const was = typeof a[key] === 'number' ? { value: a[key] as number, exclusive: false } : undefined;
      const now = typeof b[key] === 'number' ? { value: b[key] as number, exclusive: false } : undefined;
      if (boundTightened(was, now, lower))
        out.push(`${where}: ${key} tightened from ${showBound(was)} to ${showBound(now)}`);
    }
    // Every multiple of the old step must remain a multiple of the new one.
    const [stepA, stepB] = [a.multipleOf, b.multipleOf];
    if (typeof stepB === 'number' && (typeof stepA !== 'number' || (stepA / stepB) % 1 !== 0)) {
      out.push(`${where}: multipleOf tightened from ${String(stepA ?? 'none')} to ${stepB}`);
    }
    if (b.pattern !== undefined && b.pattern !== a.pattern) {
      out.push(`${where}: pattern changed from ${String(a.pattern ?? 'none')} to ${String(b.pattern)}`);
    }
    const enumA = a.const !== undefined ? [a.const] : (a.enum as unknown[] | undefined);
    const enumB = b.const !== undefined ? [b.const] : (b.enum as unknown[] | undefined);
    if (enumB) {
      const allowed = new Set(enumB.map((value) => JSON.stringify(value)));
      const dropped = enumA?.filter((value) => !allowed.has(JSON.stringify(value)));
      if (!enumA) out.push(`${where}: now restricted to ${JSON.stringify(enumB)}`);
      else if (dropped?.length)
        out.push(`${where}: no longer accepts ${dropped.map((v) => JSON.stringify(v)).join(', ')}`);
    }
    if (b.uniqueItems === true && a.uniqueItems !== true) out.push(`${where}: items must now be unique`);
    for (const key of ['additionalProperties', 'unevaluatedProperties']) {
      if (b[key] === false && a[key] !== false) out.push(`${where}: ${key} is now false (extra fields refused)`);
    }
  }

  private compareProperties(a: Schema, b: Schema, where: string, dir: Direction): void {
    const propsA = (a.properties as Record<string, Schema> | undefined) ?? {};
    const propsB = (b.properties as Record<string, Schema> | undefined) ?? {};
    const requiredA = new Set((a.required as string[] | undefined) ?? []);
    const requiredB = new Set((b.required as string[] | undefined) ?? []);
    for (const [name, schema] of Object.entries(propsA)) {
      if (!(name in propsB)) {
        this.out.push(`${where}: property "${name}" removed`);
        continue;
      }
      if (dir === 'response' && requiredA.has(name) && !requiredB.has(name)) {
        this.out.push(`${where}: property "${name}" is no longer required (clients may rely on it being present)`);
      }
      this.compare(schema, propsB[name], `${where}.${name}`, dir);
    }
    if (dir === 'request') {
      for (const name of requiredB) {
        if (!requiredA.has(name)) this.out.push(`${where}: property "${name}" is newly required`);
      }
    }
  }

  // Alternatives are matched by position: a reordering shows up as changes, erring on the side of a report.
  private compareAlternatives(a: Schema, b: Schema, keyword: 'oneOf' | 'anyOf', where: string, dir: Direction): void {
    const listA = (a[keyword] as unknown[] | undefined) ?? [];
    const listB = (b[keyword] as unknown[] | undefined) ?? [];
    if (listA.length === 0 && listB.length === 0) return;
    // A request must keep every alternative it offered; a response must not grow new shapes.
    const narrowed = dir === 'request' ? listB.length < listA.length : listB.length > listA.length;
    if (narrowed || listA.length === 0 || listB.length === 0) {
      this.out.push(`${where}: ${keyword} alternatives changed from ${listA.length} to ${listB.length}`);
      return;
    }
    listA.forEach((schema, i) => {
      if (i < listB.length) this.compare(schema, listB[i], `${where}(${keyword}[${i}])`, dir);
    });
  }
}

function parametersOf(route: string, item: PathItem, operation: Operation): Map<string, Parameter> {
  // Operation-level parameters override path-level ones of the same name and location. Path parameters are known by
  // their place in the template, since their names never reach the wire; header names ignore case.
  const slots = [...route.matchAll(/\{([^}]*)\}/g)].map((match) => match[1]);
  const key = (p: Parameter) =>
    p.in === 'path' && slots.includes(p.name)
      ? `path:#${slots.indexOf(p.name)}`
      : `${p.in}:${p.in === 'header' ? p.name.toLowerCase() : p.name}`;
  const merged = new Map(
    [...(item.parameters ?? []), ...(operation.parameters ?? [])].map((p) => [`${p.in}:${p.name}`, p]),
  );
  return new Map([...merged.values()].map((p) => [key(p), p]));
}

// Path templates match whatever their parameters are called: /plants/{id} and /plants/{plantId} are one route.
function routeKey(path: string): string {
  return path.replace(/\{[^}]*\}/g, '{}');
}

/** Security alternatives in effect; an empty list (or an empty requirement) lets anonymous callers in. */
function requirementsOf(operation: Operation, document: Document): Requirement[] {
  return operation.security ?? document.security ?? [];
}

function showRequirement(requirement: Requirement): string {
  const parts = Object.entries(requirement).map(([scheme, scopes]) =>
    scopes.length ? `${scheme} [${scopes.join(', ')}]` : scheme,
  );
  return parts.length ? parts.join(' + ') : 'anonymous';
}

// A caller who met requirement `had` still gets in when some alternative of `next` asks for no more than `had` did.
function stillSatisfied(had: Requirement, next: Requirement[]): boolean {
  if (next.length === 0) return true;
  return next.some((alternative) =>
    Object.entries(alternative).every(([scheme, scopes]) => {
      const held = had[scheme];
      return held !== undefined && scopes.every((scope) => held.includes(scope));
    }),
  );
}

interface Side {
  document: Document;
  route: string;
  item: PathItem;
  operation: Operation;
}

function compareOperation(name: string, a: Side, b: Side): string[] {
  const out: string[] = [];
  const [opA, opB] = [a.operation, b.operation];
  if (opA.operationId !== opB.operationId) {
    out.push(`${name}: operationId changed from ${opA.operationId ?? '(none)'} to ${opB.operationId ?? '(none)'}`);
  }

  const paramsA = parametersOf(a.route, a.item, opA);
  const paramsB = parametersOf(b.route, b.item, opB);
  for (const [key, paramA] of paramsA) {
    const paramB = paramsB.get(key);
    const label = `${name}: ${paramA.in} parameter "${paramA.name}"`;
    if (!paramB) {
      out.push(`${label} removed`);
      continue;
    }
    if (!paramA.required && paramB.required) out.push(`${label} is newly required`);
    out.push(...schemaChanges(paramA.schema, paramB.schema, label, 'request'));
  }
  for (const [key, paramB] of paramsB) {
    if (!paramsA.has(key) && paramB.required) out.push(`${name}: new required ${paramB.in} parameter "${paramB.name}"`);
  }

  const bodyA = opA.requestBody;
  const bodyB = opB.requestBody;
  if (bodyA && !bodyB) out.push(`${name}: request body removed`);
  if (bodyB?.required && !bodyA?.required) out.push(`${name}: request body is newly required`);
  if (bodyA && bodyB) {
    for (const [type, mediaA] of Object.entries(bodyA.content ?? {})) {
      const mediaB = bodyB.content?.[type];
      if (!mediaB) out.push(`${name}: request body no longer accepts ${type}`);
      else out.push(...schemaChanges(mediaA.schema, mediaB.schema, `${name}: request body`, 'request'));
    }
  }

  // One shared schema (Error) changed shows in every response using it: one line per change names them all.
  const statusesByChange = new Map<string, string[]>();
  for (const [status, responseA] of Object.entries(opA.responses ?? {})) {
    const responseB = opB.responses?.[status];
    if (!responseB) {
      // Other statuses fall back to `default`, which clients handle already.
      if (/^2/.test(status)) out.push(`${name}: success response ${status} removed`);
      else if (status === 'default') out.push(`${name}: default response removed`);
      continue;
    }
    const changes: string[] = [];
    for (const [type, mediaA] of Object.entries(responseA.content ?? {})) {
      const mediaB = responseB.content?.[type];
      if (!mediaB) changes.push(` no longer returns ${type}`);
      else changes.push(...schemaChanges(mediaA.schema, mediaB.schema, '', 'response'));
    }
    const headersB = new Map(Object.entries(responseB.headers ?? {}).map(([h, v]) => [h.toLowerCase(), v]));
    for (const [header, valueA] of Object.entries(responseA.headers ?? {})) {
      const valueB = headersB.get(header.toLowerCase());
      if (!valueB) changes.push(` header ${header} removed`);
      else changes.push(...schemaChanges(valueA.schema, valueB.schema, ` header ${header}`, 'response'));
    }
    // A link is a promise to stateful clients (chain this answer to that operation with these values): removing it,
    // or pointing it elsewhere, breaks them.
    for (const [link, valueA] of Object.entries(responseA.links ?? {})) {
      const valueB = responseB.links?.[link];
      if (!valueB) changes.push(` link ${link} removed`);
      else {
        const targetA = valueA.operationId ?? valueA.operationRef;
        const targetB = valueB.operationId ?? valueB.operationRef;
        if (targetA !== targetB) changes.push(` link ${link}: target changed from ${targetA} to ${targetB}`);
        for (const [parameter, expression] of Object.entries(valueA.parameters ?? {})) {
          const now = valueB.parameters?.[parameter];
          if (JSON.stringify(now) !== JSON.stringify(expression)) {
            changes.push(` link ${link}: parameter ${parameter} changed from ${String(expression)} to ${String(now)}`);
          }
        }
      }
    }
    for (const change of changes) statusesByChange.set(change, [...(statusesByChange.get(change) ?? []), status]);
  }
  for (const [change, statuses] of statusesByChange) out.push(`${name}: response ${statuses.join('/')}${change}`);

  const requirementsA = requirementsOf(opA, a.document);
  const requirementsB = requirementsOf(opB, b.document);
  for (const requirement of requirementsA.length ? requirementsA : [{}]) {
    if (!stillSatisfied(requirement, requirementsB)) {
      const now = requirementsB.map(showRequirement).join(' or ');
      out.push(`${name}: security tightened: a caller with ${showRequirement(requirement)} now needs ${now}`);
    }
  }
  const scopeA = opA['x-required-scope'];
  const scopeB = opB['x-required-scope'];
  if (scopeB !== undefined && scopeA !== scopeB) {
    out.push(`${name}: required scope changed from ${scopeA ?? 'none'} to ${scopeB}`);
  }
  return out;
}

/** Human-readable lines, one per change in `next` that breaks a client of `base`; empty when none. */
export function findBreakingChanges(base: object, next: object): string[] {
  const out: string[] = [];
  const [docA, docB] = [base as Document, next as Document];
  const routesB = new Map(Object.entries(docB.paths ?? {}).map(([route, item]) => [routeKey(route), { route, item }]));
  for (const [route, itemA] of Object.entries(docA.paths ?? {})) {
    const operationName = (method: string, op: Operation) =>
      `${method.toUpperCase()} ${route} (${op.operationId ?? 'no operationId'})`;
    const matched = routesB.get(routeKey(route));
    if (!matched) {
      const lost = HTTP_METHODS.flatMap((method) => (itemA[method] ? [operationName(method, itemA[method])] : []));
      out.push(`path ${route} removed, and with it ${lost.join(', ') || 'no operations'}`);
      continue;
    }
    for (const method of HTTP_METHODS) {
      const opA = itemA[method];
      const opB = matched.item[method];
      if (!opA) continue;
      if (!opB) {
        out.push(`${operationName(method, opA)}: operation removed`);
        continue;
      }
      out.push(
        ...compareOperation(
          operationName(method, opA),
          { document: docA, route, item: itemA, operation: opA },
          { document: docB, route: matched.route, item: matched.item, operation: opB },
        ),
      );
    }
  }
  return out;
}
