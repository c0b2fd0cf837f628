// What the protocol phases share: ids of their own at the top of the reserved block (above where the stateful phase
// picks its pairs), plant names with the run's prefix (run-names.ts), and creates, deletes and list walks that keep
// the ledger, so that the cleanup deletes whatever a phase left.

import type { Expectation } from './checks.js';
import type { ContractOperation } from './contract.js';
import { bodyIdField, bodyNameField } from './generated-phase.js';
import type { Exchange, Principal } from './http-client.js';
import { RESERVED_SIZE } from './reserved-ids.js';
import type { Answer, RunContext } from './run-context.js';
import { runName } from './run-names.js';
import { toJson } from './schema-arbitraries.js';

export interface PlantOperations {
  create: ContractOperation;
  list: ContractOperation;
  remove: ContractOperation;
}

/** The operations that create, list and delete plants; undefined when the contract lacks one or the run may not write. */
export function plantOperations(run: RunContext): PlantOperations | undefined {
  const [create, list, remove] = [
    run.contract.byRole('create'),
    run.contract.byRole('list'),
    run.contract.byRole('delete'),
  ];
  return create && list && remove && !run.options.readOnly ? { create, list, remove } : undefined;
}

/** Each phase's slot of 128 ids; the slots start 2,048 ids below the top of the block. */
const SLOTS = ['lifecycle', 'isolation', 'conditional', 'idempotency', 'walk', 'headers'] as const;
export type Slot = (typeof SLOTS)[number];

/** The id at `index` (0 to 127) of `slot`. */
export function slotId(run: RunContext, slot: Slot, index: number): bigint {
  return run.range.at(RESERVED_SIZE - 2048n + BigInt(SLOTS.indexOf(slot)) * 128n + BigInt(index));
}

/** The name of the plant at `index` of `slot`: one of the run's names (run-names.ts), unique within the run. */
export function plantName(run: RunContext, slot: Slot, index: number): string {
  return runName(run.namePrefix, slotId(run, slot, index), `${slot}-${index}`);
}

/** The plants the run created that both list answers show: no two principals of a run share a plant name. */
export function sharedRunPlants(run: RunContext, own: unknown, theirs: unknown): string[] {
  const mine = new Set(listedNames(own).filter((name) => name.startsWith(run.namePrefix)));
  return listedNames(theirs).filter((name) => mine.has(name));
}

/** The body of a create of `id` named `name`, as the contract's create takes it. */
function createBody(operations: PlantOperations, id: bigint, name: string): string {
  return toJson({
    [bodyIdField(operations.create) ?? 'id']: id,
    [bodyNameField(operations.create)?.name ?? 'name']: name,
  });
}

/** Creates `id` as `principal` (the ledger keeps it when the answer is a success). */
export async function createPlant(
  run: RunContext,
  operations: PlantOperations,
  principal: Principal,
  plant: { id: bigint; name: string; headers?: Record<string, string> },
  expectation: Expectation = { statuses: [operations.create.successStatus], because: 'a new id' },
): Promise<Answer | undefined> {
  const answer = await run.call(
    operations.create,
    {
      method: operations.create.method,
      target: operations.create.path,
      principal,
      headers: { 'content-type': 'application/json', ...plant.headers },
      body: createBody(operations, plant.id, plant.name),
    },
    expectation,
  );
  if (answer && answer.exchange.status >= 200 && answer.exchange.status < 300) run.ledger.add(principal, plant.id);
  return answer;
}

/** The path that deletes `id`. */
function deleteTarget(operations: PlantOperations, id: bigint): string {
  return operations.remove.path.replace(/\{[^}]+\}/, String(id));
}

/** Deletes `id` as `principal` (the ledger lets it go when the answer is a success). */
export async function deletePlant(
  run: RunContext,
  operations: PlantOperations,
  principal: Principal,
  id: bigint,
  expectation: Expectation,
): Promise<Answer | undefined> {
  const request = { method: operations.remove.method, target: deleteTarget(operations, id), principal };
  const answer = await run.call(operations.remove, request, expectation);
  if (answer && answer.exchange.status >= 200 && answer.exchange.status < 300) run.ledger.remove(principal, id);
  return answer;
}

/** The names of the plants in a list answer's body. */
function listedNames(body: unknown): string[] {
  if (!Array.isArray(body)) return [];
  return body.flatMap((plant) => (typeof plant?.name === 'string' ? [plant.name as string] : []));
}

/** The first page of `principal`'s list at the largest `limit` the contract allows (the same URL for everyone). */
export function firstPageTarget(list: ContractOperation): string {
  const maximum = list.parameters.find((p) => p.name === 'limit')?.schema.maximum;
  return typeof maximum === 'number' ? `${list.path}?limit=${maximum}` : list.path;
}

export interface Walk {
  /** The names listed, in order, over every page. */
  names: string[];
  pages: Exchange[];
  /** True when the last page came without a Link. */
  complete: boolean;
}

const MAX_PAGES = 200;

/** Pages through `principal`'s list by its Link headers; `between` runs after each page but the last. */
export async function walkList(
  run: RunContext,
  list: ContractOperation,
  principal: Principal,
  limit: number,
  between?: (names: string[]) => Promise<void>,
): Promise<Walk> {
  const walk: Walk = { names: [], pages: [], complete: false };
  let target = `${list.path}?limit=${limit}`;
  for (let page = 0; page < MAX_PAGES && !run.signal.aborted; page++) {
    const answer = await run.call(list, { method: 'GET', target, principal }, { statuses: [list.successStatus] });
    if (answer?.exchange.status !== list.successStatus) return walk;
    walk.pages.push(answer.exchange);
    walk.names.push(...listedNames(answer.body));
    const next = /^<([^>]*)>/.exec(answer.exchange.headers.link?.trim() ?? '')?.[1];
    if (next === undefined) {
      walk.complete = answer.exchange.headers.link === undefined;
      return walk;
    }
    target = `${list.path}${new URL(next, answer.exchange.url).search}`;
    await between?.(walk.names);
  }
  return walk;
}
