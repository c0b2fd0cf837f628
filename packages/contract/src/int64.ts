// Signed 64-bit integers, the contract's `format: int64`: the one place that defines their bounds and the decimal
// grammar they are written in. No Node or DOM APIs, so the SDK may bundle it.

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

/** A JSON integer literal (and an integer path or query value): optional minus, no leading zeros, no fraction. */
export const INTEGER_TEXT = /^-?(?:0|[1-9]\d*)$/;

/** True when `value` lies within the signed 64-bit range. */
export function isInt64(value: bigint): boolean {
  return value >= INT64_MIN && value <= INT64_MAX;
}
