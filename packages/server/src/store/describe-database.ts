// Where a DATABASE_URL points, said for people (the start line, the CLI), as its engine describes it (open-store.ts).
import { engineFor } from './open-store.js';

export function describeDatabase(databaseUrl: string): string {
  return engineFor(databaseUrl)?.describe(databaseUrl) ?? `an unsupported DATABASE_URL`;
}

/** The database of `config` and where that setting came from: `... (DATABASE_URL)` or `... (the default, ...)`. */
export function describeConfiguredDatabase(config: {
  databaseUrl: string;
  databaseUrlFrom: 'DATABASE_URL' | 'default';
}): string {
  const from = config.databaseUrlFrom === 'DATABASE_URL' ? 'DATABASE_URL' : 'the default, as DATABASE_URL is not set';
  return `${describeDatabase(config.databaseUrl)} (${from})`;
}
