// The instrumented store finds the store's methods at run time: every method of every repository reaches the engine
// through it and is timed (traced where it runs inside requests), so a method the Store gains is measured with no
// line added there. The methods checked are the memory engine's, which the compiler holds to the whole interface.

import { sampleValue } from '@plant-store/test-kit/prometheus-samples';
import { describe, expect, it, type Mock, vi } from 'vitest';
import { instrumentStore, methodNames, type SpanAround } from '../../src/observability/instrumented-store.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { openMemoryStore } from '../../src/store/memory/memory-store.js';
import type { Store } from '../../src/store/store.js';

/** The memory store with each of its methods (its repositories' too) a spy answering its own name, by that name. */
function spiedStore(): { store: Store; spies: Map<string, Mock> } {
  const spies = new Map<string, Mock>();
  const spy = (name: string) => {
    const method = vi.fn(async () => name);
    spies.set(name, method);
    return method;
  };
  const spied: Record<string, unknown> = {};
  for (const [member, value] of Object.entries(openMemoryStore())) {
    if (typeof value === 'function') spied[member] = spy(member);
    else if (typeof value === 'object' && value !== null) {
      spied[member] = Object.fromEntries(
        Object.entries(value)
          .filter(([, method]) => typeof method === 'function')
          .map(([name]) => [name, spy(`${member}.${name}`)]),
      );
    } else spied[member] = value;
  }
  return { store: spied as unknown as Store, spies };
}

/** Calls `name` ('plants.list', 'ping') on `store` with one argument. */
function call(store: Store, name: string, argument: unknown): Promise<unknown> {
  const path = name.split('.');
  const owner = path.length === 1 ? store : (store as unknown as Record<string, object>)[path[0]!];
  return Reflect.get(owner!, path.at(-1)!).call(owner, argument);
}

describe('the instrumented store', () => {
  it('passes every method of the store and its repositories on, timing each repository call and ping', async () => {
    const { store, spies } = spiedStore();
    const metrics = createMetrics();
    const spans: string[] = [];
    const span: SpanAround = (name, _attributes, run) => {
      spans.push(name);
      return run();
    };
    const instrumented = instrumentStore(store, metrics, span);
    expect(instrumented.kind).toBe('memory');
    // The memory engine's repositories, as the interface has them: a method missing from the spies is missing here.
    expect([...spies.keys()]).toEqual(expect.arrayContaining(['plants.create', 'plants.list', 'idempotency.sweep']));
    for (const [name, method] of spies) {
      await expect(call(instrumented, name, `${name} argument`)).resolves.toBe(name);
      expect(method, name).toHaveBeenCalledExactlyOnceWith(`${name} argument`);
    }
    const text = await metrics.registry.metrics();
    const timed = (operation: string) =>
      sampleValue(text, 'plant_store_store_operation_duration_seconds_count', { engine: 'memory', operation });
    // Registering a listener is no store call; migrating and closing are the store's life, not its operations.
    const untimed = new Set(['webhooks.onQueued', 'migrate', 'close']);
    for (const name of spies.keys()) expect(timed(name), name).toBe(untimed.has(name) ? undefined : 1);
    // The delivery worker's and the sweeper's calls run outside requests: not traced.
    const traced = [...spies.keys()].filter((name) => /^(plants|tokens)\.|^ping$/.test(name));
    expect(spans.sort()).toEqual(traced.map((name) => `store ${name}`).sort());
  });

  it('passes a method the store gains on, timed, with no change to the instrumented store', async () => {
    const { store } = spiedStore();
    const count = vi.fn(async (owner: string, id: bigint) => ({ owner, id }));
    const grown = { ...store, plants: { ...store.plants, count } } as Store;
    const metrics = createMetrics();
    const instrumented = instrumentStore(grown, metrics, undefined) as Store & { plants: { count: typeof count } };
    await expect(instrumented.plants.count('alice', 1n)).resolves.toEqual({ owner: 'alice', id: 1n });
    expect(
      sampleValue(await metrics.registry.metrics(), 'plant_store_store_operation_duration_seconds_count', {
        engine: 'memory',
        operation: 'plants.count',
      }),
    ).toBe(1);
  });

  it("times the token cache's answer as a token lookup only when it answers, and never waits a turn for it", async () => {
    const { store } = spiedStore();
    const record = { id: 't1', subject: 'alice', scopes: [], createdAt: new Date(0), expiresAt: null, revokedAt: null };
    const cachedByHash = vi.fn((hash: Buffer) => (hash.length > 0 ? { ...record, secretHash: hash } : undefined));
    const metrics = createMetrics();
    const instrumented = instrumentStore({ ...store, tokens: { ...store.tokens, cachedByHash } }, metrics, undefined);
    expect(instrumented.tokens.cachedByHash?.(Buffer.from('hash'))).toMatchObject({ id: 't1' });
    expect(instrumented.tokens.cachedByHash?.(Buffer.alloc(0))).toBeUndefined();
    expect(
      sampleValue(await metrics.registry.metrics(), 'plant_store_store_operation_duration_seconds_count', {
        engine: 'memory',
        operation: 'tokens.findByHash',
      }),
    ).toBe(1);
  });

  it('finds the methods a class keeps on its prototype as well as its own', () => {
    class Repository {
      own = async () => 'own';
      async inherited() {
        return 'inherited';
      }
    }
    class Derived extends Repository {
      async derived() {
        return 'derived';
      }
    }
    expect(methodNames(new Derived()).sort()).toEqual(['derived', 'inherited', 'own']);
  });
});
