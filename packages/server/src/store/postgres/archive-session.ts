// The one connection an export or an import runs on: DATABASE_DIRECT_URL where given (a long transaction needs no
// pooler), else DATABASE_URL, reaching the server their target_session_attrs asks for (the primary, with several
// hosts); its transaction works in the URL's schema (SET LOCAL: gone at its end).
import type pg from 'pg';
import { StoreUnavailableError } from '../store.js';
import { quoteIdent } from './identifier.js';
import { parsePostgresUrl } from './multi-host-url.js';
import { sessionClient } from './session-target.js';

/** The deadline of connecting; the transaction itself has none (an export of millions of rows takes a while). */
const CONNECT_TIMEOUT_MS = 10_000;

export interface ArchiveSession {
  client: pg.Client;
  schema: string | null;
  /** Runs `begin` (BEGIN ...) and sets the schema for the transaction. */
  begin(begin: string): Promise<void>;
}

export async function openArchiveSession(
  databaseUrl: string,
  directUrl: string | null,
  applicationName: string,
): Promise<ArchiveSession> {
  const { schema } = parsePostgresUrl(databaseUrl);
  const target =
    directUrl === null ? parsePostgresUrl(databaseUrl) : parsePostgresUrl(directUrl, 'DATABASE_DIRECT_URL');
  const Client = sessionClient(target, { probeMs: CONNECT_TIMEOUT_MS, onServer: () => {} });
  const client = new Client({
    connectionString: target.hosts[0]!.connectionString,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    // pg_stat_activity tells which export or import a session is, and of which schema.
    application_name: `${applicationName}${schema ? ` ${schema}` : ''}`.slice(0, 63),
  });
  // A connection lost mid-way fails the query in flight; the event itself must not end the process.
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (error) {
    throw new StoreUnavailableError('the PostgreSQL database is unreachable', { cause: error });
  }
  return {
    client,
    schema,
    async begin(begin) {
      await client.query(schema ? `${begin}; SET LOCAL search_path TO ${quoteIdent(schema)}` : begin);
    },
  };
}
