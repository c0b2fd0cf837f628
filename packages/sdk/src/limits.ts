// The contract's bounds, for forms that check before sending: read from the contract's generated runtime facts
// (openapi.yaml -> `pnpm gen`), so a bound changed in the contract changes here with the next build.
import { INT64_MAX, INT64_MIN, LIMITS } from '@plant-store/contract';

/** The bounds the service enforces, from the contract: `name` and `tag` lengths and the page size `limit`. */
export const PLANT_STORE_LIMITS = Object.freeze({
  /** `name`: its length bounds; no control characters (PLANT_TEXT_PATTERN). */
  name: Object.freeze({ minLength: LIMITS.name.minLength, maxLength: LIMITS.name.maxLength }),
  /** `tag` (optional): its length bounds; no control characters. */
  tag: Object.freeze({ minLength: LIMITS.tag.minLength, maxLength: LIMITS.tag.maxLength }),
  /** `limit` of `list`/`listPage` (and `pageSize` of `listAll`): its range and default. */
  limit: Object.freeze({ minimum: LIMITS.limit.minimum, maximum: LIMITS.limit.maximum, default: LIMITS.limit.default }),
  /** Ids: the signed 64-bit range. */
  id: Object.freeze({ minimum: INT64_MIN, maximum: INT64_MAX }),
});

/** The pattern `name` and `tag` must match: no control characters (C0 U+0000 to U+001F, DEL U+007F, C1 U+0080 to U+009F). */
export const PLANT_TEXT_PATTERN = new RegExp(LIMITS.name.pattern, 'u');
