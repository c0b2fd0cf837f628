// The names the generated phase gives its creates: every create a deployment may store (a valid one, and one whose one
// broken rule is its id's form, which a deployment that rounds numbers to doubles stores as an integer) carries the
// run's name for its id, so that cleanup finds it by name; so does a valid update, for the id in its path; no other
// plan is renamed.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadConformanceContract } from '../src/contract.js';
import { namedForRun } from '../src/generated-phase.js';
import { type Plan, plansFor } from '../src/requests.js';
import { reservedRange } from '../src/reserved-ids.js';
import { idInRunName } from '../src/run-names.js';
import { RawNumber } from '../src/schema-arbitraries.js';

const contract = loadConformanceContract();
const create = contract.byRole('create')!;
const range = reservedRange(1);
const prefix = 'cftest0001-';
const id = range.at(5000n);
const plan = (kind: Plan['kind'], body: Record<string, unknown>, breaks?: string): Plan => ({
  operation: create,
  kind,
  shape: { path: {}, query: {}, body },
  credentials: { kind: 'token', principal: 'token' },
  ...(breaks ? { breaks } : {}),
});
const nameOf = (named: Plan) => (named.shape.body as { name?: unknown }).name;

describe('namedForRun', () => {
  it('names a valid create, and one whose id is sent as <id>.5 or as text, for that id', () => {
    for (const sent of [id, new RawNumber(`${id}.5`), String(id)]) {
      const kind = sent === id ? 'valid' : 'invalid';
      const named = namedForRun(prefix, plan(kind, { name: 'fern', id: sent }, 'body id: type'));
      expect(nameOf(named)).toBe(`${prefix}${id} fern`);
      expect((named.shape.body as { id?: unknown }).id).toBe(sent);
    }
  });

  it('leaves every other plan as it is: another broken rule, another operation', () => {
    const brokenName = plan('invalid', { name: 5, id }, 'body name: type');
    expect(namedForRun(prefix, brokenName)).toBe(brokenName);
    const unknownField = plan('invalid', { name: 'fern', id, color: 'extra' }, 'body color: unknown field');
    expect(namedForRun(prefix, unknownField)).toBe(unknownField);
    const list = { ...plan('valid', { name: 'fern', id }), operation: contract.byRole('list')! };
    expect(namedForRun(prefix, list)).toBe(list);
  });

  it("names a valid update for the id in its path, and gives a body id the path's", () => {
    const update = {
      ...create,
      operationId: 'updatePlant',
      method: 'PUT',
      path: '/plants/{id}',
      parameters: contract.byRole('delete')!.parameters,
      role: 'update' as const,
    };
    const valid: Plan = {
      ...plan('valid', { name: 'fern', id: 1n }),
      operation: update,
      shape: { path: { id }, query: {}, body: { name: 'fern', id: 1n } },
    };
    expect(namedForRun(prefix, valid).shape.body).toEqual({ name: `${prefix}${id} fern`, id });
    const invalid: Plan = { ...valid, kind: 'invalid', breaks: 'body name: maxLength' };
    expect(namedForRun(prefix, invalid)).toBe(invalid);
  });

  it('names every drawn create with its id in a wrong form, whatever label the generator gives its broken rule', () => {
    const context = { range, writers: ['token' as const], readToken: false, readOnly: false, bodyLimit: undefined };
    const wrongIdForms = fc.sample(plansFor(create, context), { seed: 1, numRuns: 2000 }).filter((drawn) => {
      const sent = (drawn.shape.body as { id?: unknown } | undefined)?.id;
      return drawn.kind === 'invalid' && (sent instanceof RawNumber || typeof sent === 'string');
    });
    expect(wrongIdForms.length).toBeGreaterThan(0);
    for (const drawn of wrongIdForms) {
      const named = idInRunName(prefix, nameOf(namedForRun(prefix, drawn)));
      expect(named, drawn.breaks).toBeDefined();
      expect(range.has(named!)).toBe(true);
    }
  });
});
