// How many connections the API holds at once: fewer than the process may open descriptors, so that running out sheds
// connections (connection-shares.ts closes one beyond the bound, or an idle one, as soon as it is accepted) while the
// database, SQLite's files, webhook deliveries, Redis and the metrics listener still get the descriptors they need,
// and the process never meets EMFILE in the middle of its own work.
// The bound: the soft RLIMIT_NOFILE (`ulimit -n`, read from /proc/self/limits) less a reserve of a tenth of it, at
// least 64. No limit to read (not Linux) or an unlimited one: no bound.
import { readFileSync } from 'node:fs';

export const RESERVED_MIN = 64;

/** The soft limit on open files from the text of /proc/self/limits; undefined when unknown or unlimited. */
export function openFilesLimit(limits: string): number | undefined {
  const soft = /^Max open files\s+(\S+)/m.exec(limits)?.[1];
  const value = Number(soft);
  return Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

/** The connection bound for a descriptor limit (see above); undefined for no bound. */
export function connectionBound(limit: number | undefined): number | undefined {
  if (limit === undefined) return undefined;
  return Math.max(1, limit - Math.max(RESERVED_MIN, Math.ceil(limit / 10)));
}

/** This process's connection bound. */
export function processConnectionBound(): number | undefined {
  try {
    return connectionBound(openFilesLimit(readFileSync('/proc/self/limits', 'utf8')));
  } catch {
    return undefined;
  }
}
