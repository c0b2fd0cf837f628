// The generated types hold the spec's shapes. `pnpm typecheck` (tsc -b; this package's tsconfig.test.json includes
// test/) fails on a wrong expectTypeOf, and proves the @ts-expect-error lines fail to compile.
import { describe, expectTypeOf, it } from 'vitest';
import type {
  ErrorBody,
  NewPlant,
  NewPlantWebhookPayload,
  OperationId,
  PathParamsOf,
  Plant,
  QueryOf,
  RequestBodyOf,
  SuccessBodyOf,
  SuccessStatusOf,
  WebhookHeaders,
} from '../src/index.js';

describe('generated contract types', () => {
  it('the new-plant webhook carries a NewPlant and the three Standard Webhooks headers', () => {
    expectTypeOf<NewPlantWebhookPayload>().toEqualTypeOf<NewPlant>();
    expectTypeOf<WebhookHeaders>().toEqualTypeOf<{
      'webhook-id': string;
      'webhook-timestamp': string;
      'webhook-signature': string;
    }>();
  });

  it('Plant has a required name, an optional tag and no id', () => {
    expectTypeOf<Plant>().toEqualTypeOf<{ name: string; tag?: string }>();
    const plant: Plant = { name: 'Fern' };
    // @ts-expect-error Plant has no id
    const withId: Plant = { name: 'Fern', id: 1 };
    // @ts-expect-error name is required
    const nameless: Plant = { tag: 'x' };
    expectTypeOf(plant).toEqualTypeOf<Plant>();
    expectTypeOf(withId).toEqualTypeOf<Plant>();
    expectTypeOf(nameless).toEqualTypeOf<Plant>();
  });

  it('NewPlant requires a numeric (number or bigint) id and a name', () => {
    expectTypeOf<NewPlant['id']>().toEqualTypeOf<number | bigint>();
    expectTypeOf<NewPlant['name']>().toEqualTypeOf<string>();
    expectTypeOf<NewPlant>().toHaveProperty('tag');
    const ok: NewPlant = { id: 9223372036854775807n, name: 'Fern' };
    // @ts-expect-error id is required
    const noId: NewPlant = { name: 'Fern' };
    // @ts-expect-error id must be numeric, not a string
    const stringId: NewPlant = { id: '1', name: 'Fern' };
    // @ts-expect-error name must be a string
    const numberName: NewPlant = { id: 1, name: 5 };
    expectTypeOf([ok, noId, stringId, numberName]).items.toEqualTypeOf<NewPlant>();
  });

  it('Error requires an integer error and a message, and may carry details (1.1.0)', () => {
    expectTypeOf<ErrorBody>().toEqualTypeOf<{
      error: number;
      message: string;
      details?: { location: 'body' | 'query' | 'path'; field: string; rule: string; limit?: number }[];
    }>();
    // @ts-expect-error message is required
    const noMessage: ErrorBody = { error: 400 };
    expectTypeOf(noMessage).toEqualTypeOf<ErrorBody>();
  });

  it('keys operations by the spec’s operationIds', () => {
    expectTypeOf<OperationId>().toEqualTypeOf<'createPlant' | 'getPlants' | 'deletePlant'>();
    expectTypeOf<RequestBodyOf<'createPlant'>>().toEqualTypeOf<NewPlant>();
    expectTypeOf<SuccessBodyOf<'createPlant'>>().toEqualTypeOf<Plant>();
    expectTypeOf<SuccessBodyOf<'getPlants'>>().toEqualTypeOf<Plant[]>();
    expectTypeOf<SuccessStatusOf<'deletePlant'>>().toEqualTypeOf<204>();
    expectTypeOf<SuccessBodyOf<'deletePlant'>>().toEqualTypeOf<undefined>();
    expectTypeOf<PathParamsOf<'deletePlant'>>().toEqualTypeOf<{ id: number | bigint }>();
    expectTypeOf<NonNullable<QueryOf<'getPlants'>>>().toEqualTypeOf<{ limit?: number; cursor?: string }>();
  });
});
