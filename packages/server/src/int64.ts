// Exact int64 values on the server: ids in bodies, paths, query strings and cursors are read through toInt64, never
// through a rounded number. The bounds and the integer grammar come from the contract package.
import { INT64_MAX, INT64_MIN, INTEGER_TEXT, isInt64 } from '@plant-store/contract';

/** What a client is told when a value is not an int64. */
export const INT64_RANGE_MESSAGE = `must be an integer from ${INT64_MIN} to ${INT64_MAX}`;

/** An exact int64 from a number, bigint or (when `fromText`) decimal string; undefined when it is not one. */
export function toInt64(value: unknown, fromText: boolean): number | bigint | undefined {
  let exact: bigint;
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) return undefined;
    return value;
  }
  if (typeof value === 'bigint') exact = value;
  else if (fromText && typeof value === 'string' && INTEGER_TEXT.test(value)) exact = BigInt(value);
  else return undefined;
  if (!isInt64(exact)) return undefined;
  const asNumber = Number(exact);
  return Number.isSafeInteger(asNumber) ? asNumber : exact;
}
