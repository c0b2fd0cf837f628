// The contract's bounds, for forms that check before sending. Copied from openapi.yaml's schemas and parameters;
// test/unit/errors-for-ui.test.ts ("the contract's limits") reads the contract and fails when these drift from it.
import { INT64_MAX, INT64_MIN } from '@plant-store/contract';

/** The bounds the service enforces, from the contract: `name` and `tag` lengths and the page size `limit`. */
export const PLANT_STORE_LIMITS = Object.freeze({
  /** `name`: 1 to 200 characters, no control characters. */
  name: Object.freeze({ minLength: 1, maxLength: 200 }),
  /** `tag` (optional): 1 to 100 characters, no control characters. */
  tag: Object.freeze({ minLength: 1, maxLength: 100 }),
  /** `limit` of `list`/`listPage` (and `pageSize` of `listAll`): 1 to 1000, default 100. */
  limit: Object.freeze({ minimum: 1, maximum: 1000, default: 100 }),
  /** Ids: the signed 64-bit range. */
  id: Object.freeze({ minimum: INT64_MIN, maximum: INT64_MAX }),
});

/** The pattern `name` and `tag` must match: no control characters (C0 U+0000 to U+001F, DEL U+007F, C1 U+0080 to U+009F). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the contract's own rule is about control characters.
export const PLANT_TEXT_PATTERN = /^[^\u0000-\u001F\u007F-\u009F]*$/;
