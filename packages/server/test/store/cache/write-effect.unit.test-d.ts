// The caches' tables of write effects are keyed by the contract's WriteEffect: an effect openapi.yaml adds (an update,
// say) makes them fail to compile until they handle it.
import type { WriteEffect } from '@plant-store/contract';
import { expectTypeOf } from 'vitest';
import { EFFECT_CODES } from '../../../src/store/cache/write-effect.js';

// Today's contract writes by create and delete.
expectTypeOf<WriteEffect>().toEqualTypeOf<'create' | 'delete'>();

// A table of the effect module's shape, asked to cover one effect more, is refused.
type Table<Effect extends string> = { readonly [E in Effect]: number };
// @ts-expect-error Property 'update' is missing
export const withUpdate: Table<WriteEffect | 'update'> = EFFECT_CODES;
