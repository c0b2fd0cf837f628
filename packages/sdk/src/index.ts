// @plant-store/sdk: the typed client for the Plant Store API. Everything public is exported here; other modules
// are internal.
export type {
  components,
  ErrorBody,
  NewPlant,
  NewPlantWebhookPayload,
  operations,
  Plant,
  PlantId,
  paths,
  WebhookHeaders,
  webhooks,
} from '@plant-store/contract';
export type { Middleware } from 'openapi-fetch';
export {
  createPlantStoreClient,
  type ListAllQuery,
  type ListQuery,
  type PlantPage,
  type PlantStoreClient,
  type PlantStoreClientOptions,
} from './client.js';
export {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  InternalServerError,
  type NoAnswerOptions,
  NotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  PlantStoreAbortError,
  PlantStoreConnectionError,
  PlantStoreCursorCycleError,
  PlantStoreError,
  type PlantStoreErrorInit,
  PlantStoreSdkError,
  PlantStoreTimeoutError,
  RateLimitError,
  UnsupportedMediaTypeError,
} from './errors.js';
export { PLANT_STORE_LIMITS, PLANT_TEXT_PATTERN } from './limits.js';
export { parsePlantId } from './plant-id.js';
export { type TraceContextHeaders, traceContextMiddleware } from './trace-context.js';
export type { CallOptions, RetryInfo, RetryOptions, TokenContext, TokenSource } from './transport.js';
export {
  PlantStoreWebhook,
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookHeaderSource,
  WebhookVerificationError,
  type WebhookVerificationReason,
} from './webhook.js';
