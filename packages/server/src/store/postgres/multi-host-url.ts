// A PostgreSQL URL as libpq reads it: one host or several (`postgres://user@pg1:5432,pg2:5432/db`), with
// `target_session_attrs` saying which server of them to use. node-postgres takes one host, so the store splits the
// URL into one plain connection string per host. Imports nothing of pg (the configuration checks URLs with it).

/** The servers a connection may use: `read-write` (the default here: the service writes), `primary` or `any`. */
export const TARGET_SESSION_ATTRS = ['read-write', 'primary', 'any'] as const;
export type TargetSessionAttrs = (typeof TARGET_SESSION_ATTRS)[number];

export interface PostgresTarget {
  /** One per host, in the URL's order: `host:port` for people, and the URL with that host alone for node-postgres. */
  hosts: { address: string; connectionString: string }[];
  /** The `schema` query parameter (the store's own), or null. */
  schema: string | null;
  targetSessionAttrs: TargetSessionAttrs;
}

// The parameters that are the store's, not PostgreSQL's: node-postgres would pass them on as settings.
const OWN_PARAMETERS = ['schema', 'target_session_attrs'];

/** Splits a PostgreSQL URL by host; throws a TypeError naming `variable` when it is not one. */
export function parsePostgresUrl(text: string, variable = 'DATABASE_URL'): PostgresTarget {
  const match = /^(postgres(?:ql)?:\/\/)([^@/?#]*@)?([^/?#]*)(.*)$/s.exec(text);
  if (!match) throw new TypeError(`${variable} must be postgres://user@host:port/database, got "${text}"`);
  const [, scheme, credentials = '', hostList = '', rest = ''] = match;
  const names = hostList.split(',');
  const urls = names.map((name) => {
    if (names.length > 1 && name === '') throw new TypeError(`${variable} names an empty host in "${hostList}"`);
    try {
      return new URL(`${scheme}${credentials}${name}${rest}`);
    } catch {
      throw new TypeError(`${variable} has a host that is not host or host:port: "${name}"`);
    }
  });
  const first = urls[0]!;
  const attrs = first.searchParams.get('target_session_attrs') ?? 'read-write';
  if (!(TARGET_SESSION_ATTRS as readonly string[]).includes(attrs)) {
    throw new TypeError(
      `${variable}'s target_session_attrs must be ${TARGET_SESSION_ATTRS.join(', ')} (the service writes), got "${attrs}"`,
    );
  }
  const schema = first.searchParams.get('schema');
  return {
    hosts: urls.map((url) => {
      for (const name of OWN_PARAMETERS) url.searchParams.delete(name);
      return {
        address: `${url.hostname || url.searchParams.get('host') || 'localhost'}:${url.port || '5432'}`,
        connectionString: url.toString(),
      };
    }),
    schema,
    targetSessionAttrs: attrs as TargetSessionAttrs,
  };
}
