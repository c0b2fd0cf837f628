// The checker's view of the contract comes from the generated facts, not from a walk of its own: the operations,
// their bounds and scopes are the facts', and which operation creates, lists and deletes follows the contract's links;
// which reads or updates one plant, from method and path.
import { LIMITS, LINKS, OPERATIONS } from '@plant-store/contract';
import { expect, it } from 'vitest';
import { loadConformanceContract, rolesOf } from '../src/contract.js';

const contract = loadConformanceContract();

it('has every operation of the facts, with their scopes and security', () => {
  expect(contract.operations.map(({ operationId, method, path }) => ({ operationId, method, path }))).toEqual(
    OPERATIONS.map(({ operationId, method, path }) => ({ operationId, method, path })),
  );
  for (const facts of OPERATIONS) {
    const operation = contract.operations.find((candidate) => candidate.operationId === facts.operationId)!;
    expect(operation.scope).toBe(facts.scope ?? undefined);
    expect(operation.secured).toBe(facts.security.length > 0);
  }
});

it('takes the bounds of parameters and body fields from the facts', () => {
  const list = contract.byRole('list')!;
  expect(list.parameters.find((p) => p.name === 'limit')?.schema).toMatchObject({ type: 'integer', ...LIMITS.limit });
  expect(list.parameters.find((p) => p.name === 'cursor')?.description).toMatch(/opaque/i);
  const create = contract.byRole('create')!;
  expect(create.body).toMatchObject({
    type: 'object',
    required: ['name', 'id'],
    additionalProperties: false,
    properties: { name: LIMITS.name, tag: LIMITS.tag, id: { type: 'integer', format: 'int64' } },
  });
});

it('learns which operation creates, lists and deletes from the links', () => {
  const deleteLink = LINKS.find((link) => Object.values(link.parameters).includes('$request.body#/id'))!;
  expect(contract.byRole('create')?.operationId).toBe(deleteLink.from);
  expect(contract.byRole('delete')?.operationId).toBe(deleteLink.operationId);
  expect(contract.byRole('list')?.operationId).toBe(
    LINKS.find((link) => link.from === deleteLink.from && link.operationId !== deleteLink.operationId)?.operationId,
  );
  expect(contract.byRole('create')?.successStatus).toBe(200);
  expect(contract.byRole('delete')?.successStatus).toBe(204);
});

it('learns which operation reads and updates one plant from method and path: those of the deleted plant', () => {
  const remove = OPERATIONS.find((operation) => operation.method === 'DELETE')!;
  const byId = (operationId: string, method: 'GET' | 'PUT' | 'PATCH', path: string = remove.path) => ({
    ...remove,
    operationId,
    method,
    path,
  });
  const roles = rolesOf(
    [
      ...OPERATIONS,
      byId('getPlant', 'GET'),
      byId('updatePlant', 'PUT'),
      byId('patchPlant', 'PATCH'),
      byId('getOther', 'GET', '/others/{id}'),
    ],
    LINKS,
  );
  expect(Object.fromEntries(roles)).toMatchObject({
    getPlant: 'read',
    updatePlant: 'update',
    patchPlant: 'update',
    [remove.operationId]: 'delete',
  });
  expect(roles.get('getOther')).toBeUndefined();
});
