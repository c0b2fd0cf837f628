// Handler types tell the truth: secured operations get a principal, open ones (none today) would get null, and the
// handler map must name every operationId exactly once.
import type { OperationId } from '@plant-store/contract';
import { describe, expectTypeOf, it } from 'vitest';
import type { Principal } from '../../src/auth/principal.js';
import type { HandlerInput, Handlers, OPEN_OPERATIONS, PrincipalOf } from '../../src/handlers/handler.js';
import { handlers } from '../../src/handlers/index.js';

describe('handler types', () => {
  it('gives secured operations a non-null principal', () => {
    expectTypeOf<PrincipalOf<'getPlants'>>().toEqualTypeOf<Principal>();
    expectTypeOf<HandlerInput<'createPlant'>['principal']>().toEqualTypeOf<Principal>();
    expectTypeOf<(typeof OPEN_OPERATIONS)[number]>().toEqualTypeOf<never>();
  });

  it('binds exactly the contract’s operationIds', () => {
    expectTypeOf<keyof typeof handlers>().toEqualTypeOf<OperationId>();
    // @ts-expect-error a handler map without deletePlant is not Handlers
    const partial: Handlers = { createPlant: handlers.createPlant, getPlants: handlers.getPlants };
    expectTypeOf(partial).toEqualTypeOf<Handlers>();
  });
});
