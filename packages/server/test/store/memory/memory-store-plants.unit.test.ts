// The memory engine's plants are the core's memory engine, with the creates adding webhook deliveries: every other
// method of the core's repository is offered as it is, with no list of them to keep in step with the interface.
import { openMemoryPlants } from '@plant-store/core';
import { describe, expect, it } from 'vitest';
import { openMemoryStore } from '../../../src/store/memory/memory-store.js';

describe("the memory engine's plants", () => {
  it("offer every method of the core's memory engine", () => {
    const core = openMemoryPlants().plants;
    const store = openMemoryStore().plants;
    const names = Object.keys(core);
    expect(names).toEqual(expect.arrayContaining(['create', 'createOnce', 'list', 'delete']));
    expect(Object.keys(store).sort()).toEqual(names.sort());
    for (const name of names) expect(typeof Reflect.get(store, name), name).toBe('function');
  });

  it("answer the core's reads and deletes, and queue a webhook delivery with a create", async () => {
    const store = openMemoryStore();
    await store.webhooks.addSubscription({ id: 's1', url: 'http://localhost/hook', subject: null, secret: 'whsec_x' });
    expect(await store.plants.create('alice', { id: 1n, name: 'Fern' })).toBe(true);
    expect((await store.plants.list('alice', { limit: 5 })).lastId).toBe(1n);
    expect(await store.plants.delete('alice', 1n)).toBe(true);
    expect((await store.webhooks.listDeliveries({ failedOnly: false, limit: 5 })).length).toBe(1);
  });
});
