// Where a PostgreSQL DATABASE_URL points, said for people (the start line, the CLI): database, host (or hosts),
// schema and user, never a password. Imports nothing of pg, so describing a URL never loads the driver.
import { parsePostgresUrl } from './multi-host-url.js';

export function describePostgresUrl(databaseUrl: string): string {
  let target: ReturnType<typeof parsePostgresUrl>;
  try {
    target = parsePostgresUrl(databaseUrl);
  } catch {
    return 'the PostgreSQL database of DATABASE_URL';
  }
  const url = new URL(target.hosts[0]!.connectionString);
  const user = decodeURIComponent(url.username);
  // What pg does with a part the URL leaves out: the user's name as the database, localhost (or a socket folder given
  // as ?host=), port 5432.
  const database = decodeURIComponent(url.pathname.slice(1)) || user || '(the user name)';
  const hosts = target.hosts.map((host) => host.address);
  const where =
    hosts.length === 1 ? `on ${hosts[0]}` : `on the ${target.targetSessionAttrs} server of ${hosts.join(', ')}`;
  return `the PostgreSQL database ${database} ${where}, schema ${target.schema ?? 'public'}${user ? `, user ${user}` : ''}`;
}
