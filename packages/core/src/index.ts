// @plant-store/core: the service's rules below HTTP, which the server and the SDK's testing kit both run. The
// handlers (one per operationId) and the Idempotency-Key rules, the bearer token's wording, the part of the store
// the handlers need, and an in-memory engine of it. Web-platform code only (no Node imports), so the testing kit can
// bundle it for browsers. Everything public of the package is exported here.
export {
  bearerTokenOf,
  insufficientScope,
  invalidRequest,
  queryTokenRefused,
  TOKEN_NOT_RECOGNISED,
  unauthorized,
} from './auth/bearer-rules.js';
export type { Principal } from './auth/principal.js';
export { didYouMean, unknownOptionMessage } from './did-you-mean.js';
export {
  type Handler,
  type HandlerInput,
  type HandlerResult,
  type Handlers,
  OPEN_OPERATIONS,
  type PrincipalOf,
} from './handlers/handler.js';
export { handlers } from './handlers/index.js';
export {
  KEYED_OPERATIONS,
  type KeptRefusalAnswer,
  keepRefusal,
  MAX_IDEMPOTENCY_KEYS_PER_PRINCIPAL,
  malformedKeyError,
  refusalFingerprintOf,
} from './idempotency/idempotency-key.js';
export { type MemoryPlants, openMemoryPlants } from './store/memory-plants.js';
export {
  IDEMPOTENCY_TTL_MS,
  type IdempotencyClaim,
  type IdempotencyRepository,
  type KeptAnswer,
  type PlantPage,
  type PlantRepository,
  type PlantStore,
  type StoredPlant,
} from './store/plant-store.js';
export { effectApplied, unchanged, type Written } from './store/written.js';
