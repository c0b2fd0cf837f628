// The contract's types, generated from openapi.yaml (./generated/openapi.ts), small type helpers keyed by operationId, and the
// few run-time facts every package shares: the scopes, the int64 bounds, exact JSON and the OpenAPI walk. The document itself
// (its path, reading it) is the Node-only subpath `@plant-store/contract/document`.
import type { components, operations, paths, webhooks } from './generated/openapi.js';

export { ApiError } from './api-error.js';
export { CALLER_TEXT_MAX, callerText } from './caller-text.js';
export { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS, CORS_MAX_AGE_SECONDS } from './cors.js';
export { CURSOR_NOT_ISSUED_MESSAGE, decodeCursor, encodeCursor, nextPageLink } from './cursor.js';
export {
  BODY_EMPTY_MESSAGE,
  BODY_NOT_UTF8_MESSAGE,
  BODY_TOO_LARGE_MESSAGE,
  FRAGMENT_IN_TARGET_MESSAGE,
  methodNotAllowedMessage,
  NOT_JSON_MESSAGE,
  noRouteMessage,
  rateLimitMessage,
} from './edge-refusals.js';
export {
  JsonBodyError,
  MAX_EXACT_INTEGERS,
  MAX_JSON_CONTAINERS,
  MAX_JSON_DEPTH,
  parseJsonExact,
} from './exact-json.js';
export { BODY_LIMIT_BYTES, CONTRACT_METHODS, LIMITS, LINKS, OPERATIONS } from './generated/operations.js';
export { SDK_OPERATIONS } from './generated/sdk-operations.js';
export { INT64_MAX, INT64_MIN, INT64_RANGE_MESSAGE, INTEGER_TEXT, isInt64, toInt64 } from './int64.js';
export { charsetOf, isJsonCharset } from './json-charset.js';
export { flattenAllOf, HTTP_METHODS, type HttpMethod, type OperationEntry, operationsOf } from './openapi-walk.js';
export type {
  BodyFacts,
  FieldFacts,
  LinkFacts,
  OperationEffect,
  OperationFacts,
  ParameterFacts,
  SdkOperationFacts,
  ValueFacts,
} from './operation-facts.js';
export { pathPattern } from './path-template.js';
export {
  BODY_REQUIRED_MESSAGE,
  type BrokenRule,
  checkBody,
  checkParameters,
  checkQueryNames,
  checkValue,
  describeBrokenRule,
  detailOfBrokenRule,
  type ErrorDetail,
  type Problem,
} from './request-rules.js';
export { isScope, SCOPES, type Scope } from './scopes.js';
export { SERVED_CONTRACT_PATH } from './served-contract.js';
export type { WriteEffect } from './write-effect.js';
export type { components, operations, paths, webhooks };

export type Plant = components['schemas']['Plant'];
export type NewPlant = components['schemas']['NewPlant'];
export type ErrorBody = components['schemas']['Error'];

type NewPlantWebhookRequest = webhooks['/plant/webhook']['post'];
/** The body of the "new plant added" webhook (`webhooks./plant/webhook`): the NewPlant that was stored. */
export type NewPlantWebhookPayload = NewPlantWebhookRequest['requestBody']['content']['application/json'];
/** The Standard Webhooks headers every webhook request carries. */
export type WebhookHeaders = NewPlantWebhookRequest['parameters']['header'];

/** Every operation of the contract, by its operationId. */
export type OperationId = keyof operations;

/** An exact signed 64-bit id: a number where it is a safe integer, a bigint beyond. */
export type PlantId = NewPlant['id'];

type JsonContent<T> = T extends { content: { 'application/json': infer Body } } ? Body : undefined;

/** The JSON body an operation takes (undefined when it takes none). */
export type RequestBodyOf<Op extends OperationId> = JsonContent<NonNullable<operations[Op]['requestBody']>>;

/** The path parameters of an operation. */
export type PathParamsOf<Op extends OperationId> = operations[Op]['parameters'] extends { path: infer P }
  ? P
  : undefined;

/** The query parameters of an operation. */
export type QueryOf<Op extends OperationId> = operations[Op]['parameters'] extends { query?: infer Q } ? Q : undefined;

/**
 * The request headers an operation declares, under the lower-case names Node and Fastify give them
 * (`idempotency-key`, `if-none-match`).
 */
export type HeadersOf<Op extends OperationId> = operations[Op]['parameters'] extends { header?: infer H }
  ? [H] extends [undefined]
    ? Record<string, never>
    : { [K in keyof NonNullable<H> as Lowercase<K & string>]?: NonNullable<H>[K] }
  : Record<string, never>;

type SuccessStatus = 200 | 201 | 204;

/** The status code an operation answers with on success. */
export type SuccessStatusOf<Op extends OperationId> = Extract<keyof operations[Op]['responses'], SuccessStatus>;

/** The body of an operation's success answer (undefined for 204). */
export type SuccessBodyOf<Op extends OperationId> = JsonContent<operations[Op]['responses'][SuccessStatusOf<Op>]>;
