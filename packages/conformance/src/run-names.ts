// The names a run gives the plants it creates: the run's own prefix, then the id as sent, then anything. A run finds
// what it left behind by name (it lists every plant and picks its prefix), so cleanup works even where the
// deployment mangled the ids it was sent; the id in the name is where to start looking for the one it stored.
import { randomBytes } from 'node:crypto';

/** A prefix no other run shares: `cf`, the seed and random characters, then a dash. */
export function runNamePrefix(seed: number): string {
  return `cf${seed.toString(36)}${randomBytes(4).toString('hex')}-`;
}

/** `prefix`, `id` and a space, then as much of `rest` as fits in `maxLength` characters (code points). */
export function runName(prefix: string, id: bigint, rest: string, maxLength = Number.POSITIVE_INFINITY): string {
  const head = `${prefix}${id} `;
  return head + [...rest].slice(0, Math.max(0, maxLength - [...head].length)).join('');
}

/** The id a run name carries, when `name` is one of this run's (starts with `prefix`). */
export function idInRunName(prefix: string, name: unknown): bigint | undefined {
  if (typeof name !== 'string' || !name.startsWith(prefix)) return undefined;
  const id = /^(-?\d{1,19}) /.exec(name.slice(prefix.length))?.[1];
  return id === undefined ? undefined : BigInt(id);
}

/** The id a run name carries, when `name` is one a run with `seed` gave (this run's or an earlier one's). */
export function idInRunNameOfSeed(seed: number, name: unknown): bigint | undefined {
  const prefix =
    typeof name === 'string' ? new RegExp(`^cf${seed.toString(36).replace('-', '\\-')}[0-9a-f]{8}-`).exec(name) : null;
  return prefix ? idInRunName(prefix[0], name) : undefined;
}
