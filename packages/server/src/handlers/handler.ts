// The handler contract: one function per operationId, typed from the generated contract, free of Fastify.
// A missing or misspelled operationId in the map is a compile error (see handlers/index.ts).
import type {
  OperationId,
  PathParamsOf,
  QueryOf,
  RequestBodyOf,
  SuccessBodyOf,
  SuccessStatusOf,
} from '@plant-store/contract';
import type { Principal } from '../auth/principal.js';
import type { Store } from '../store/store.js';

/**
 * Operations the contract leaves open (no security requirement): no token is checked, so their handlers get no
 * principal. checkBindings (http/bindings.ts) refuses to start when this list and openapi.yaml disagree.
 */
export const OPEN_OPERATIONS = [] as const satisfies readonly OperationId[];

/** Who is calling: null for an open operation, whose caller presents no token. */
export type PrincipalOf<Op extends OperationId> = Op extends (typeof OPEN_OPERATIONS)[number] ? null : Principal;

export interface HandlerInput<Op extends OperationId> {
  principal: PrincipalOf<Op>;
  body: RequestBodyOf<Op>;
  params: PathParamsOf<Op>;
  /** The query after validation, with defaults applied. */
  query: NonNullable<QueryOf<Op>>;
  /** The request path, for building links. */
  path: string;
}

export type HandlerResult<Op extends OperationId> = {
  status: SuccessStatusOf<Op>;
  headers?: Record<string, string>;
} & (
  | { body: SuccessBodyOf<Op> }
  /** The body already serialized, by a store that builds exactly the contract's JSON (the hot read path). */
  | { json: string }
);

export interface HandlerDeps {
  store: Store;
}

export type Handler<Op extends OperationId> = (
  input: HandlerInput<Op>,
  deps: HandlerDeps,
) => Promise<HandlerResult<Op>>;

export type Handlers = { readonly [Op in OperationId]: Handler<Op> };
