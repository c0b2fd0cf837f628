// The labels of the broken rules a run's invalid requests carry (in `expected-status` and `negative-data-rejection`
// failures): one shape wherever the request was drawn, `<where> <name>: <rule>`, where is path, query or body, the name
// a parameter or body field the request really carries, and `<where>: <rule>` for a rule of the whole body.
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { loadConformanceContract } from '../src/contract.js';
import { edgePlans, type Plan, plansFor, validShape } from '../src/requests.js';
import { reservedRange } from '../src/reserved-ids.js';
import { brokenRule, invalidValue } from '../src/schema-arbitraries.js';

const contract = loadConformanceContract();
const range = reservedRange(3);
const context = {
  range,
  writers: ['token', 'second-token'] as const,
  readToken: true,
  readOnly: false,
  bodyLimit: 16_384,
};
const RULES = [
  'type',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'pattern',
  'int64 range',
  'required',
  'unknown field',
  'truncated JSON',
];
/** where, the name (bare, or quoted as JSON), the rule. */
const LABEL = /^(path|query|body)(?: ([\w.-]+|"(?:[^"\\]|\\.)*"))?: (.+)$/;

/** The plans of every operation that break a rule: drawn ones and the edges. */
function brokenPlans(): Plan[] {
  return contract.operations.flatMap((operation) => {
    const drawn = fc.sample(plansFor(operation, { ...context, writers: [...context.writers] }), {
      seed: 5,
      numRuns: 3000,
    });
    const [shape] = fc.sample(validShape(operation, range), { seed: 5, numRuns: 1 });
    const edges = edgePlans(operation, () => structuredClone(shape!));
    return [...drawn, ...edges].filter((plan) => plan.kind === 'invalid' || plan.kind === 'malformed-body');
  });
}

it('labels every broken rule `<where> <name>: <rule>`, naming a parameter or body field the request carries', () => {
  const plans = brokenPlans();
  const seen = new Set<string>();
  for (const plan of plans) {
    const match = LABEL.exec(plan.breaks ?? '');
    expect(match, `${plan.operation.operationId}: ${plan.breaks}`).not.toBeNull();
    const [, where, written, rule] = match!;
    const name = written?.startsWith('"') ? (JSON.parse(written) as string) : written;
    expect(RULES, plan.breaks).toContain(rule);
    seen.add(`${where} ${name === undefined ? '' : 'name'}`);
    if (where === 'body') {
      expect(plan.operation.body, plan.breaks).toBeDefined();
      const body = plan.shape.body as Record<string, unknown> | undefined;
      // The field it names is in the body sent, but where the rule is that it must be and is missing.
      if (name !== undefined && rule !== 'required') expect(Object.keys(body ?? {}), plan.breaks).toContain(name);
      if (rule === 'required') expect(Object.keys(body ?? {}), plan.breaks).not.toContain(name);
    } else {
      const declared = plan.operation.parameters.filter((p) => p.in === where).map((p) => p.name);
      expect(declared, plan.breaks).toContain(name);
      expect(Object.keys(plan.shape[where as 'path' | 'query']), plan.breaks).toContain(name);
    }
  }
  // Every site was drawn: path and query parameters, body fields and the body as a whole.
  expect([...seen].sort()).toEqual(['body ', 'body name', 'path name', 'query name']);
});

it('builds the label in one place, and within a value without the site (as the service fuzz test shows it)', () => {
  expect(brokenRule('minimum', 'limit', 'query')).toBe('query limit: minimum');
  expect(brokenRule('type', undefined, 'body')).toBe('body: type');
  expect(brokenRule('maxLength', 'name')).toBe('name: maxLength');
  expect(brokenRule('unknown field', 'a b: c', 'body')).toBe('body "a b: c": unknown field');
  const schema = { type: 'object', required: ['name'], properties: { name: { type: 'string', maxLength: 3 } } };
  for (const bad of fc.sample(invalidValue(schema), { seed: 1, numRuns: 200 })) {
    expect(bad.breaks).toBe(brokenRule(bad.rule, bad.field));
  }
});
