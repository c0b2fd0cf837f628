// Signed 64-bit integers, the contract's `format: int64`: the one place that defines their bounds and the decimal
// grammar they are written in. No Node or DOM APIs, so the SDK may bundle it.

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

/**
 * An integer path or query value, in its one canonical form: optional minus, no leading zeros, no fraction, and no
 * `-0` (read as 0, it would be a second spelling of `0`, as `01` would of `1`).
 */
export const INTEGER_TEXT = /^(?:0|-?[1-9]\d*)$/;

/** True when `value` lies within the signed 64-bit range. */
export function isInt64(value: bigint): boolean {
  return value >= INT64_MIN && value <= INT64_MAX;
}

/**
 * An exact int64 from a number, a bigint or (when `fromText`) decimal integer text: a number while it is a safe
 * integer, a bigint beyond; undefined when it is not a signed 64-bit integer. Never goes through a rounded number.
 */
export function toInt64(value: unknown, fromText: boolean): number | bigint | undefined {
  let exact: bigint;
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : undefined;
  if (typeof value === 'bigint') exact = value;
  else if (fromText && typeof value === 'string' && INTEGER_TEXT.test(value)) exact = BigInt(value);
  else return undefined;
  if (!isInt64(exact)) return undefined;
  const asNumber = Number(exact);
  return Number.isSafeInteger(asNumber) ? asNumber : exact;
}

/** What a client is told when a value is not an int64. */
export const INT64_RANGE_MESSAGE = `must be an integer from ${INT64_MIN} to ${INT64_MAX}`;
