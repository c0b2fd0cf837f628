// The handler contract: one function per operationId, typed from the generated contract, free of Fastify and of
// Node. The server binds them to routes; the SDK's testing kit calls the same functions over the memory engine. A
// missing or misspelled operationId in the map is a compile error (see handlers/index.ts).
import {
  type HeadersOf,
  OPERATIONS,
  type OperationId,
  type operations,
  type PathParamsOf,
  type QueryOf,
  type RequestBodyOf,
  type SuccessBodyOf,
  type SuccessStatusOf,
} from '@plant-store/contract';
import type { Principal } from '../auth/principal.js';
import type { PlantStore } from '../store/plant-store.js';

type OpenOperation = Extract<(typeof OPERATIONS)[number], { readonly security: readonly [] }>;

/**
 * Operations the contract leaves open (no security requirement), from its generated facts: no token is checked, so
 * their handlers get no principal. the server's checkBindings (http/bindings.ts) refuses a contract that disagrees.
 */
export const OPEN_OPERATIONS: readonly OpenOperation['operationId'][] = OPERATIONS.flatMap((operation) =>
  // Cast: the type above already says which operations are open; this is the same test at run time.
  (operation.security as readonly string[]).length === 0 ? [operation.operationId as OpenOperation['operationId']] : [],
);

/** Who is calling: null for an open operation, whose caller presents no token. */
export type PrincipalOf<Op extends OperationId> = Op extends (typeof OPEN_OPERATIONS)[number] ? null : Principal;

export interface HandlerInput<Op extends OperationId> {
  principal: PrincipalOf<Op>;
  body: RequestBodyOf<Op>;
  params: PathParamsOf<Op>;
  /** The query after validation, with defaults applied. */
  query: NonNullable<QueryOf<Op>>;
  /** The request headers the operation declares (validated), by lower-case name. */
  headers: HeadersOf<Op>;
  /** The request path, for building links. */
  path: string;
}

export type HandlerResult<Op extends OperationId> =
  | ({
      status: SuccessStatusOf<Op>;
      headers?: Record<string, string>;
    } & (
      | { body: SuccessBodyOf<Op> }
      /** The body already serialized (UTF-8 bytes), by a store that builds exactly the contract's JSON (the hot read). */
      | { json: string | Uint8Array }
    ))
  /** 304 Not Modified, where the operation declares it: no body. */
  | { status: Extract<keyof operations[Op]['responses'], 304>; headers: Record<string, string>; body: undefined }
  /** An answer kept for an Idempotency-Key, given again exactly as it was sent the first time (any status). */
  | { status: number; headers: Record<string, string>; json: string; replayed: true };

export interface HandlerDeps {
  store: PlantStore;
}

export type Handler<Op extends OperationId> = (
  input: HandlerInput<Op>,
  deps: HandlerDeps,
) => Promise<HandlerResult<Op>>;

export type Handlers = { readonly [Op in OperationId]: Handler<Op> };
