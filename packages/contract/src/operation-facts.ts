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
