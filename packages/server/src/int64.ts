// Exact int64 values on the server: ids in bodies, paths, query strings and cursors are read through the contract's
// toInt64, never through a rounded number. The bounds, the integer grammar and toInt64 come from the contract package.
import { INT64_MAX, INT64_MIN } from '@plant-store/contract';

export { toInt64 } from '@plant-store/contract';

/** What a client is told when a value is not an int64. */
export const INT64_RANGE_MESSAGE = `must be an integer from ${INT64_MIN} to ${INT64_MAX}`;
