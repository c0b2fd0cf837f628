// A write's effect on what the stores cache, declared once: whether a create or a delete of one plant can alter a
// cached page (and so its conditional GET: a kept page takes the write's version, which its ETag names), and how the
// SQLite change log writes the effect down. Both are keyed by the contract's WriteEffect (generated from openapi.yaml),
// so a new write operation does not compile until each says what its effect does.
import type { WriteEffect } from '@plant-store/contract';
import type { PlantPage } from '../store.js';

export type { WriteEffect };

/** A write to an owner's plants, as the caches replay it: its effect, the plant's id, and the version it made. */
export interface PlantChange {
  effect: WriteEffect;
  id: bigint;
  version: bigint;
}

/**
 * Whether the effect on plant `id`, which is after the page's cursor, can alter the page. Pages are in id order: a
 * plant beyond the last one changes nothing while the page stays full and knows more follow (a create there keeps
 * `hasMore` true; a delete there may make it false, so it counts when more were said to follow).
 */
const ALTERS: { readonly [Effect in WriteEffect]: (id: bigint, page: PlantPage) => boolean } = {
  create: (id, page) => page.lastId === undefined || id <= page.lastId || !page.hasMore,
  delete: (id, page) => page.lastId === undefined || id <= page.lastId || page.hasMore,
};

/** Whether a page of an owner's plants (those after `after`, or from the start) can differ after `effect` on `id`. */
export function pageChangedBy(effect: WriteEffect, id: bigint, page: PlantPage, after: bigint | undefined): boolean {
  return (after === undefined || id > after) && ALTERS[effect](id, page);
}

/** The effect as the SQLite change log stores it (plant_changes.created, migration 5: 1 a create, 0 a delete). */
export const EFFECT_CODES: { readonly [Effect in WriteEffect]: number } = { delete: 0, create: 1 };

const EFFECT_BY_CODE = Object.entries(EFFECT_CODES).reduce<WriteEffect[]>((effects, [effect, code]) => {
  effects[code] = effect as WriteEffect;
  return effects;
}, []);

/** The effect a change log code stands for. */
export function effectOfCode(code: number | bigint): WriteEffect {
  const effect = EFFECT_BY_CODE[Number(code)];
  if (effect === undefined) throw new Error(`unknown change log code ${code}`);
  return effect;
}
