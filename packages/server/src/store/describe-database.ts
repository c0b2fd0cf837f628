// Where a DATABASE_URL points, said for people (the start line, the CLI): the SQLite file, or PostgreSQL's database,
// host, schema and user, never a password.
import { sqliteFileOf } from './open-store.js';

export function describeDatabase(databaseUrl: string): string {
  const file = sqliteFileOf(databaseUrl);
  if (file) return `the SQLite database ${file}`;
  if (databaseUrl === 'sqlite::memory:') return 'an in-memory SQLite database';
  if (databaseUrl === 'memory:') return 'the memory engine (nothing is kept)';
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    return 'the PostgreSQL database of DATABASE_URL';
  }
  const user = decodeURIComponent(url.username);
  // What pg does with a part the URL leaves out: the user's name as the database, localhost (or a socket folder given
  // as ?host=), port 5432.
  const database = decodeURIComponent(url.pathname.slice(1)) || user || '(the user name)';
  const host = `${url.hostname || url.searchParams.get('host') || 'localhost'}:${url.port || '5432'}`;
  const schema = url.searchParams.get('schema') ?? 'public';
  return `the PostgreSQL database ${database} on ${host}, schema ${schema}${user ? `, user ${user}` : ''}`;
}

/** The database of `config` and where that setting came from: `... (DATABASE_URL)` or `... (the default, ...)`. */
export function describeConfiguredDatabase(config: {
  databaseUrl: string;
  databaseUrlFrom: 'DATABASE_URL' | 'default';
}): string {
  const from = config.databaseUrlFrom === 'DATABASE_URL' ? 'DATABASE_URL' : 'the default, as DATABASE_URL is not set';
  return `${describeDatabase(config.databaseUrl)} (${from})`;
}
