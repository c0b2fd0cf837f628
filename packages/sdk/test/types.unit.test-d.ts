// Type tests, run by `pnpm typecheck` (tsc -b over tsconfig.test.json, which includes test/): a wrong expectTypeOf fails
// the run, and each @ts-expect-error line must fail to compile. Results carry the contract's types.
import { describe, expectTypeOf, it } from 'vitest';
import { type components, createPlantStoreClient, type NewPlant, type Plant, type PlantPage } from '../src/index.js';

const client = createPlantStoreClient({
  baseUrl: 'http://plants.test',
  token: 't',
  fetch: async () => new Response('[]', { headers: { 'content-type': 'application/json' } }),
});

describe('SDK types', () => {
  it('refuses wrong bodies, string ids and wrong limits at compile time', () => {
    const calls = () => {
      // @ts-expect-error name is required
      void client.plants.create({ id: 1 });
      // @ts-expect-error id must be a number or bigint, not a string
      void client.plants.create({ id: '1', name: 'x' });
      // @ts-expect-error unknown field in the body
      void client.plants.create({ id: 1, name: 'x', owner: 'bob' });
      // @ts-expect-error tag must be a string
      void client.plants.create({ id: 1, name: 'x', tag: 5 });
      // @ts-expect-error a string id for delete
      void client.plants.delete('1');
      // @ts-expect-error limit must be a number
      void client.plants.list({ limit: '10' });
      // @ts-expect-error cursor is opaque text
      void client.plants.list({ cursor: 5 });
      // @ts-expect-error call options go in the second argument
      void client.plants.list({ timeoutMs: 5 });
      // @ts-expect-error pageSize must be a number
      void client.plants.listAll({ pageSize: '10' });
      // @ts-expect-error listAll takes a page size, not a cursor
      void client.plants.listAll({ cursor: 'abc' });
      // @ts-expect-error the raw client's body has the contract's type too
      void client.raw.POST('/plants', { body: { name: 'x' } });
      // @ts-expect-error a string id in the raw client's path
      void client.raw.DELETE('/plants/{id}', { params: { path: { id: '1' } } });
      // @ts-expect-error the raw client knows the paths
      void client.raw.GET('/plant');
    };
    expectTypeOf(calls).toBeFunction();
  });

  it('resolves to the contract’s types', () => {
    expectTypeOf(client.plants.create).parameter(0).toEqualTypeOf<NewPlant>();
    expectTypeOf(client.plants.create).returns.resolves.toEqualTypeOf<Plant>();
    expectTypeOf(client.plants.list).returns.resolves.toEqualTypeOf<Plant[]>();
    expectTypeOf(client.plants.delete).returns.resolves.toBeVoid();
    expectTypeOf(client.plants.delete).parameter(0).toEqualTypeOf<number | bigint>();
    expectTypeOf<Plant>().toEqualTypeOf<{ name: string; tag?: string }>();
    expectTypeOf(client.plants.listAll()).toMatchTypeOf<AsyncIterable<Plant>>();
    expectTypeOf(client.plants.listPage).returns.resolves.toEqualTypeOf<PlantPage>();
    expectTypeOf<PlantPage['plants']>().toEqualTypeOf<Plant[]>();
    expectTypeOf<PlantPage['nextCursor']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<NewPlant>().toEqualTypeOf<components['schemas']['NewPlant']>();
    expectTypeOf<NewPlant['id']>().toEqualTypeOf<number | bigint>();
  });

  it('types the raw client’s data and error from the contract', async () => {
    const { data, error } = await client.raw.GET('/plants', { params: { query: { limit: 10 } } });
    expectTypeOf(data).toEqualTypeOf<Plant[] | undefined>();
    expectTypeOf(error).toEqualTypeOf<
      | {
          error: number;
          message: string;
          details?: { location: 'body' | 'query' | 'path'; field: string; rule: string; limit?: number }[];
        }
      | undefined
    >();
  });
});
