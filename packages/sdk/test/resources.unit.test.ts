// The client's resources and the TanStack helpers follow the contract's generated SDK rows: every row has its method
// (three for the paged list) and its helper, each sends the row's method and path, and nothing else is added.
import { SDK_OPERATIONS } from '@plant-store/contract';
import { json, scriptedFetch } from '@plant-store/test-kit/scripted-fetch';
import { QueryClient } from '@tanstack/query-core';
import { describe, expect, it } from 'vitest';
import { createPlantStoreClient } from '../src/index.js';
import { createPlantStoreQueries } from '../src/tanstack.js';

const methodsOf = (client: object, resource: string) =>
  Object.keys((client as Record<string, Record<string, unknown>>)[resource] ?? {}).sort();

describe('resources built from the SDK rows', () => {
  it('give every row its method under its resource, and the paged list its page and all', () => {
    const client = createPlantStoreClient({ baseUrl: 'http://plants.test', token: 't', fetch: scriptedFetch().fetch });
    const expected = SDK_OPERATIONS.flatMap((row) =>
      row.paged ? [row.name, `${row.name}Page`, `${row.name}All`] : [row.name],
    );
    expect(Object.keys(client).sort()).toEqual([...new Set(SDK_OPERATIONS.map((row) => row.resource)), 'raw'].sort());
    expect(methodsOf(client, 'plants')).toEqual(expected.sort());
  });

  it('send each row’s method and path, with the path parameters, body and query in the row’s order', async () => {
    const { fetch, requests } = scriptedFetch(
      json(200, { name: 'fern' }),
      new Response(null, { status: 204 }),
      json(200, []),
    );
    const client = createPlantStoreClient({ baseUrl: 'http://plants.test', token: 't', fetch });
    await client.plants.create({ id: 7, name: 'fern' });
    await client.plants.delete(9007199254740993n);
    await client.plants.list({ limit: 5 });
    expect(
      requests.map((request) => `${request.method} ${new URL(request.url).pathname}${new URL(request.url).search}`),
    ).toEqual(['POST /plants', 'DELETE /plants/9007199254740993', 'GET /plants?limit=5']);
    expect(requests[0]?.body).toBe('{"id":7,"name":"fern"}');
  });

  it('give every row its TanStack helper: a query for a GET, a mutation for the others', () => {
    const client = createPlantStoreClient({ baseUrl: 'http://plants.test', token: 't', fetch: scriptedFetch().fetch });
    const queries = createPlantStoreQueries(client) as unknown as Record<string, unknown>;
    const expected = SDK_OPERATIONS.flatMap((row) => (row.paged ? ['page', 'infinite'] : [row.name]));
    expect(Object.keys(queries).sort()).toEqual(['keys', ...expected].sort());
    const create = createPlantStoreQueries(client).create(new QueryClient());
    expect(create.mutationKey).toEqual(['plant-store', 'default', 'plants', 'create']);
  });
});
