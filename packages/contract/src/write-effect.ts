// The effects of the contract's write operations, as a type: what a cache must know how to apply. A new write
// operation's effect joins it at `pnpm gen`, so a cache that does not handle it stops compiling.
import type { OPERATIONS } from './generated/operations.js';
import type { OperationEffect } from './operation-facts.js';

/** The effects the contract's operations have that change data (create, update, delete: those it declares). */
export type WriteEffect = Exclude<(typeof OPERATIONS)[number]['effect'], 'list' | 'read'> &
  Exclude<OperationEffect, 'list' | 'read'>;
