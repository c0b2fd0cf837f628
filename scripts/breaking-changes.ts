// Breaking-change detection between two dereferenced OpenAPI documents: what a client built against `base` relies on
// that `next` takes away or tightens. Requests may only get looser, responses may only get richer.

type Schema = Record<string, unknown>;
type Direction = 'request' | 'response';

interface Operation {
  operationId?: string;
  parameters?: { name: string; in: string; required?: boolean; schema?: Schema }[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
  security?: Record<string, string[]>[];
}

interface Document {
  paths?: Record<string, Record<string, Operation>>;
  security?: Record<string, string[]>[];
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

// allOf parts merged into one view of the schema: its types, properties and required names.
function flatten(schema: Schema | undefined): Schema {
  if (!schema) return {};
  const parts = (schema.allOf as Schema[] | undefined) ?? [];
  if (parts.length === 0) return schema;
  const merged: Schema = {
    ...schema,
    properties: { ...(schema.properties as object) },
    required: [...((schema.required as string[]) ?? [])],
  };
  delete merged.allOf;
  for (const part of parts.map(flatten)) {
    for (const [key, value] of Object.entries(part)) {
      if (key === 'properties') Object.assign(merged.properties as object, value);
      else if (key === 'required') (merged.required as string[]).push(...(value as string[]));
      else if (merged[key] === undefined) merged[key] = value;
    }
  }
  return merged;
}

function typesOf(schema: Schema): string {
  const type = schema.type;
  if (type === undefined) return schema.properties ? 'object' : 'any';
  return (Array.isArray(type) ? [...type].sort() : [type]).join('|');
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' ? value : fallback;
}

function compareSchema(
  base: Schema | undefined,
  next: Schema | undefined,
  where: string,
  dir: Direction,
  out: string[],
) {
  if (!base || !next) return;
  const a = flatten(base);
  const b = flatten(next);
  const [typeA, typeB] = [typesOf(a), typesOf(b)];
  if (typeA !== typeB && typeA !== 'any') {
    // A request that may take more types is fine; anything else changes what clients send or read.
    const widened = dir === 'request' && typeB === 'any';
    if (!widened) out.push(`${where}: type changed from ${typeA} to ${typeB}`);
    return;
  }
  if (a.format !== b.format && a.format !== undefined)
    out.push(`${where}: format changed from ${a.format} to ${b.format ?? 'none'}`);
  if (dir === 'request') {
    const tighter = (label: string, was: number, now: number, lower: boolean) => {
      if (lower ? now > was : now < was) out.push(`${where}: ${label} tightened from ${was} to ${now}`);
    };
    tighter('minimum', numberOr(a.minimum, -Infinity), numberOr(b.minimum, -Infinity), true);
    tighter('maximum', numberOr(a.maximum, Infinity), numberOr(b.maximum, Infinity), false);
    tighter('minLength', numberOr(a.minLength, 0), numberOr(b.minLength, 0), true);
    tighter('maxLength', numberOr(a.maxLength, Infinity), numberOr(b.maxLength, Infinity), false);
    tighter('minItems', numberOr(a.minItems, 0), numberOr(b.minItems, 0), true);
    tighter('maxItems', numberOr(a.maxItems, Infinity), numberOr(b.maxItems, Infinity), false);
    if (b.pattern !== undefined && b.pattern !== a.pattern)
      out.push(`${where}: pattern changed to ${String(b.pattern)}`);
    const enumA = a.enum as unknown[] | undefined;
    const enumB = b.enum as unknown[] | undefined;
    if (enumB && (!enumA || enumA.some((value) => !enumB.includes(value)))) {
      out.push(`${where}: allowed values narrowed to ${JSON.stringify(enumB)}`);
    }
  }
  const propsA = (a.properties as Record<string, Schema> | undefined) ?? {};
  const propsB = (b.properties as Record<string, Schema> | undefined) ?? {};
  const requiredA = new Set((a.required as string[] | undefined) ?? []);
  const requiredB = new Set((b.required as string[] | undefined) ?? []);
  for (const [name, schema] of Object.entries(propsA)) {
    if (!(name in propsB)) {
      out.push(`${where}: property "${name}" removed`);
      continue;
    }
    if (dir === 'response' && requiredA.has(name) && !requiredB.has(name)) {
      out.push(`${where}: property "${name}" is no longer always present`);
    }
    compareSchema(schema, propsB[name], `${where}.${name}`, dir, out);
  }
  if (dir === 'request') {
    for (const name of requiredB) if (!requiredA.has(name)) out.push(`${where}: property "${name}" is newly required`);
  }
  if (a.items || b.items) compareSchema(a.items as Schema, b.items as Schema, `${where}[]`, dir, out);
}

function requirementKeys(security: Record<string, string[]>[] | undefined): string[] {
  return (security ?? []).map((requirement) =>
    Object.entries(requirement)
      .map(([k, v]) => `${k}:${[...v].sort()}`)
      .sort()
      .join('+'),
  );
}

/** Human-readable lines, one per change in `next` that breaks a client of `base`; empty when none. */
export function findBreakingChanges(base: object, next: object): string[] {
  const out: string[] = [];
  const a = base as Document;
  const b = next as Document;
  for (const [path, itemA] of Object.entries(a.paths ?? {})) {
    const itemB = b.paths?.[path];
    if (!itemB) {
      out.push(`path ${path} removed`);
      continue;
    }
    for (const method of METHODS) {
      const opA = itemA[method];
      if (!opA) continue;
      const opB = itemB[method];
      const name = `${method.toUpperCase()} ${path} (${opA.operationId ?? 'no operationId'})`;
      if (!opB) {
        out.push(`${name}: operation removed`);
        continue;
      }
      if (opA.operationId !== opB.operationId) {
        out.push(`${name}: operationId changed from ${opA.operationId} to ${opB.operationId ?? '(none)'}`);
      }
      const paramsB = new Map((opB.parameters ?? []).map((p) => [`${p.in}:${p.name}`, p]));
      const paramsA = new Map((opA.parameters ?? []).map((p) => [`${p.in}:${p.name}`, p]));
      for (const [key, paramA] of paramsA) {
        const paramB = paramsB.get(key);
        const label = `${name}: ${paramA.in} parameter "${paramA.name}"`;
        if (!paramB) {
          out.push(`${label} removed`);
          continue;
        }
        if (!paramA.required && paramB.required) out.push(`${label} is newly required`);
        compareSchema(paramA.schema, paramB.schema, label, 'request', out);
      }
      for (const [key, paramB] of paramsB) {
        if (!paramsA.has(key) && paramB.required)
          out.push(`${name}: new required ${paramB.in} parameter "${paramB.name}"`);
      }
      const bodyA = opA.requestBody?.content?.['application/json']?.schema;
      const bodyB = opB.requestBody?.content?.['application/json']?.schema;
      if (opB.requestBody?.required && !opA.requestBody?.required) out.push(`${name}: request body is newly required`);
      if (bodyA && !bodyB && opB.requestBody) out.push(`${name}: request body no longer accepts application/json`);
      compareSchema(bodyA, bodyB, `${name}: request body`, 'request', out);
      for (const [status, responseA] of Object.entries(opA.responses ?? {})) {
        const responseB = opB.responses?.[status];
        if (!responseB) {
          if (/^2/.test(status)) out.push(`${name}: success response ${status} removed`);
          else if (status === 'default') out.push(`${name}: default response removed`);
          continue;
        }
        compareSchema(
          responseA.content?.['application/json']?.schema,
          responseB.content?.['application/json']?.schema,
          `${name}: response ${status}`,
          'response',
          out,
        );
      }
      // Requirements are alternatives: a client that met one of base's must still find it in next.
      const securityB = new Set(requirementKeys(opB.security ?? b.security));
      if (securityB.size > 0 && !securityB.has('')) {
        for (const requirement of requirementKeys(opA.security ?? a.security)) {
          if (!securityB.has(requirement))
            out.push(`${name}: security requirement ${requirement || '(none)'} no longer accepted`);
        }
      }
    }
  }
  return out;
}
