// Exact int64 ids: checked before sending (a number past 2^53 was already rounded), and written into JSON as exact
// number literals, which JSON.stringify cannot do for a bigint.
import { isInt64 } from '@plant-store/contract';

/** The id as exact decimal text, or a TypeError saying why it cannot be one. */
export function int64Text(id: number | bigint): string {
  if (typeof id === 'number') {
    if (!Number.isSafeInteger(id)) {
      throw new TypeError(
        `plant id ${id} is not a safe integer: pass a bigint (e.g. ${Number.isInteger(id) ? `${BigInt(id)}n` : '123n'}) for ids beyond 2^53`,
      );
    }
    return String(id);
  }
  if (typeof id === 'bigint') {
    if (!isInt64(id)) throw new TypeError(`plant id ${id} is outside the signed 64-bit range`);
    return id.toString();
  }
  throw new TypeError(`plant id must be a number or a bigint, got ${typeof id}`);
}

/** JSON.stringify that writes bigints (and checks numbers named `id`) as exact integer literals. */
export function stringifyExact(value: unknown): string {
  const marker = `~int64~${Math.random().toString(36).slice(2)}~`;
  const text = JSON.stringify(value, (key, item: unknown) => {
    if (typeof item === 'bigint') return `${marker}${int64Text(item)}`;
    if (key === 'id' && typeof item === 'number') int64Text(item);
    return item;
  });
  return text.replace(new RegExp(`"${marker}(-?\\d+)"`, 'g'), '$1');
}
