// Where a PostgreSQL DATABASE_URL points, said for people (the start line, the CLI): database, host, schema and user,
// never a password. Imports nothing of pg, so describing a URL never loads the driver.

export function describePostgresUrl(databaseUrl: string): string {
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
