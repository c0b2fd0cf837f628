// A write's answer as an engine must return it: branded by the call that applied the write's effect (the owner's
// version, the caches that read it), so an engine write that leaves that call out does not compile.
import type { KeptAnswer } from './plant-store.js';

declare const applied: unique symbol;

/** A write's answer, once its effect is applied (or there was none: nothing changed). */
export type Written<Answer> = Answer & { readonly [applied]: true };

/** The answer of a write that changed nothing (no such plant, the id taken, a kept answer replayed): no effect. */
export const unchanged = <Answer extends false | KeptAnswer>(answer: Answer): Written<Answer> =>
  answer as Written<Answer>;

/**
 * The answer of a write that changed the owner's plants, for the calls that apply its effect only: the memory
 * engine's version move and the server's PageCache.afterWrite.
 */
export const effectApplied = (): Written<true> => true as Written<true>;
