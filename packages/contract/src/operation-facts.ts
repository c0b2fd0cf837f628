// The shape of the contract's runtime facts (generated/operations.ts, written by `pnpm gen` from openapi.yaml): what
// each operation is, who may call it, and the bounds of every parameter and body field. No Node or DOM APIs.
import type { Scope } from './scopes.js';

/** The bounds of one value, as the contract's schema states them (only the keywords the contract uses). */
export interface ValueFacts {
  readonly type: 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array';
  readonly format?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  /** The schema's pattern, as ECMAScript regular expression source (with the `u` flag). */
  readonly pattern?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly default?: string | number | boolean;
}

/** One path or query parameter. */
export interface ParameterFacts extends ValueFacts {
  readonly name: string;
  readonly in: 'path' | 'query';
  readonly required: boolean;
}

/** One field of a JSON object body. */
export interface FieldFacts extends ValueFacts {
  readonly name: string;
  readonly required: boolean;
}

/** A JSON object request body. */
export interface BodyFacts {
  /** Whether the operation requires a body. */
  readonly required: boolean;
  /** The body's schema name in components.schemas. */
  readonly schema: string;
  /** Its fields, in the order the contract declares them (allOf parts flattened). */
  readonly fields: readonly FieldFacts[];
  /** True when fields the contract does not declare are refused (unevaluatedProperties or additionalProperties false). */
  readonly closed: boolean;
}

/**
 * What an operation does to its resource: lists the collection, reads, creates, updates or deletes one item. Inferred
 * from method and path (GET of a collection lists, GET of `/{id}` reads, POST creates, PUT and PATCH update, DELETE
 * deletes), or stated by the operation's `x-effect`. Every cache of the service reads a write's effect from here.
 */
export type OperationEffect = 'list' | 'read' | 'create' | 'update' | 'delete';

export interface OperationFacts {
  readonly operationId: string;
  /** Upper case, as HTTP writes it. */
  readonly method: 'GET' | 'PUT' | 'POST' | 'DELETE' | 'OPTIONS' | 'HEAD' | 'PATCH' | 'TRACE';
  /** The OpenAPI path template, e.g. /plants/{id}. */
  readonly path: string;
  /** The scope a token needs (x-required-scope), or null for an operation without one. */
  readonly scope: Scope | null;
  /** The security schemes the operation requires; empty for an open operation. */
  readonly security: readonly string[];
  readonly parameters: readonly ParameterFacts[];
  /** The request body, or null for an operation that takes none. */
  readonly body: BodyFacts | null;
  /** What it does to its resource. */
  readonly effect: OperationEffect;
}

/** An OpenAPI link of an operation's success answer: where a client goes next, fed from this exchange. */
export interface LinkFacts {
  /** The operation whose answer declares the link. */
  readonly from: string;
  /** The link's name in the answer's `links`. */
  readonly name: string;
  /** The operation it leads to. */
  readonly operationId: string;
  /** Its parameters by name, as runtime expressions (`$request.body#/id`). */
  readonly parameters: Readonly<Record<string, string>>;
}

/** Where an operation sits on the SDK's client (`client.<resource>.<name>`), its arguments and its behaviours. */
export interface SdkOperationFacts {
  readonly operationId: string;
  readonly method: OperationFacts['method'];
  readonly path: string;
  /** The path's first segment: the client's `plants` for /plants and /plants/{id}. */
  readonly resource: string;
  /** The method's name on its resource: the operationId's verb, `list` for a get of a collection, or `x-sdk-name`. */
  readonly name: string;
  /** The path parameters, in the path's order: the method's first arguments. */
  readonly pathParams: readonly string[];
  /** Whether it takes query parameters: an optional argument after the path parameters and the body. */
  readonly query: boolean;
  /** Whether it takes a JSON body: the argument after the path parameters. */
  readonly body: boolean;
  /** Whether it declares an Idempotency-Key header: the SDK sends a fresh one unless told otherwise. */
  readonly idempotencyKey: boolean;
  /** Whether its 200 carries a Link header: a paged list (`name`, `namePage`, `nameAll` on the client). */
  readonly paged: boolean;
}
