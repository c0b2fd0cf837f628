// Types of the TanStack Query helpers as an adapter infers them: data and error from the options, typed keys.
import {
  type InfiniteData,
  InfiniteQueryObserver,
  MutationObserver,
  QueryClient,
  QueryObserver,
} from '@tanstack/query-core';
import { describe, expectTypeOf, it } from 'vitest';
import {
  createPlantStoreClient,
  type NewPlant,
  type Plant,
  type PlantId,
  type PlantPage,
  type PlantStoreSdkError,
} from '../src/index.js';
import { createPlantStoreQueries } from '../src/tanstack.js';

const client = createPlantStoreClient({ baseUrl: 'http://plant-store.test', token: 't' });
const plants = createPlantStoreQueries(client);
const queryClient = new QueryClient();

describe('TanStack helper types', () => {
  it('infers a page’s data and the SDK’s error', () => {
    const result = new QueryObserver(queryClient, plants.page({ limit: 10 })).getCurrentResult();
    expectTypeOf(result.data).toEqualTypeOf<PlantPage | undefined>();
    expectTypeOf(result.error).toEqualTypeOf<PlantStoreSdkError | null>();
    expectTypeOf(queryClient.getQueryData(plants.keys.page({ limit: 10 }))).toEqualTypeOf<PlantPage | undefined>();
  });

  it('infers infinite data with string cursors', () => {
    const result = new InfiniteQueryObserver(queryClient, plants.infinite({ limit: 10 })).getCurrentResult();
    expectTypeOf(result.data).toEqualTypeOf<InfiniteData<PlantPage, string | undefined> | undefined>();
    expectTypeOf(result.error).toEqualTypeOf<PlantStoreSdkError | null>();
  });

  it('types mutation variables and results from the contract', () => {
    const create = new MutationObserver(queryClient, plants.create(queryClient));
    expectTypeOf(create.mutate).parameter(0).toEqualTypeOf<NewPlant>();
    expectTypeOf(create.getCurrentResult().data).toEqualTypeOf<Plant | undefined>();
    const remove = new MutationObserver(queryClient, plants.delete(queryClient));
    expectTypeOf(remove.mutate).parameter(0).toEqualTypeOf<PlantId>();
    expectTypeOf(remove.getCurrentResult().error).toEqualTypeOf<PlantStoreSdkError | null>();
  });

  it('refuses a query the contract does not allow', () => {
    // @ts-expect-error limit is a number
    plants.page({ limit: '10' });
    // @ts-expect-error the infinite list takes its cursor from Link, not from the caller
    plants.infinite({ cursor: 'abc' });
    // @ts-expect-error TanStack provides the signal
    plants.page({}, { signal: new AbortController().signal });
  });
});
