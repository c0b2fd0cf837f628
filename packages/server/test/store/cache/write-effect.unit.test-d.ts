// The caches' tables of write effects are keyed by the contract's WriteEffect: an effect openapi.yaml adds (an update,
// say) makes them fail to compile until they handle it. And every engine's write answers Written, which only the
// call applying its effect makes: a write that leaves that call out does not compile.
import type { WriteEffect } from '@plant-store/contract';
import { effectApplied, type PlantRepository, unchanged, type Written } from '@plant-store/core';
import { expectTypeOf } from 'vitest';
import type { PageCache } from '../../../src/store/cache/page-cache.js';
import { EFFECT_CODES } from '../../../src/store/cache/write-effect.js';
import { type ApplyCreates, CreateBatch, type InsertBatch } from '../../../src/store/postgres/create-batch.js';
import type { OwnWrite } from '../../../src/store/sqlite/sqlite-store.js';

// Today's contract writes by create and delete.
expectTypeOf<WriteEffect>().toEqualTypeOf<'create' | 'delete'>();

// A table of the effect module's shape, asked to cover one effect more, is refused.
type Table<Effect extends string> = { readonly [E in Effect]: number };
// @ts-expect-error Property 'update' is missing
export const withUpdate: Table<WriteEffect | 'update'> = EFFECT_CODES;

// The repository's writes (the memory engines implement it as it is): `true` comes only from the effect call.
export const deleted: PlantRepository['delete'] = async () => effectApplied();
export const notFound: PlantRepository['delete'] = async () => unchanged(false);
// @ts-expect-error a plain true is no Written<boolean>: the write skipped its effect
export const skipped: PlantRepository['delete'] = async () => true;
// @ts-expect-error nor does `unchanged` make a changed answer
export const disguised: PlantRepository['create'] = async () => unchanged(true);
// @ts-expect-error a kept answer too must say it changed nothing
export const replayed: PlantRepository['createOnce'] = async () => ({ fingerprint: '', status: 200, body: '' });

// The server's engines apply an effect through the page cache, whose answer is the write's.
expectTypeOf<ReturnType<PageCache['afterWrite']>>().toEqualTypeOf<Written<true>>();

// SQLite: a write's work answers move()'s Move when it changed the plants, never a bare true.
declare const ownWrite: OwnWrite;
expectTypeOf(ownWrite('owner', () => false)).resolves.toEqualTypeOf<Written<true> | Written<false>>();
// @ts-expect-error the work answered true without calling move()
void ownWrite('owner', () => true);

// PostgreSQL: a batch of creates is answered through the effect it applies to each owner's pages.
declare const insert: InsertBatch;
declare const apply: ApplyCreates;
expectTypeOf(new CreateBatch(insert, apply).create('owner', { id: 1n, name: 'Fern' })).resolves.toEqualTypeOf<
  Written<boolean>
>();
// @ts-expect-error the batch's creates applied no effect
void new CreateBatch(insert, () => true);
// @ts-expect-error nor can the effect be left out
void new CreateBatch(insert);
