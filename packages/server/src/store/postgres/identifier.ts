// PostgreSQL identifiers written into SQL text (the schema, the change feed's channel, tables qualified by the schema)
// are quoted here and nowhere else: unquoted, PostgreSQL folds them to lower case, so `LISTEN plant_store_CaseTest` would listen on
// plant_store_casetest while pg_notify('plant_store_CaseTest', ...) keeps the case, and a mixed-case schema's
// instances would never hear each other.

/** `name` as a quoted identifier: its case kept, any `"` doubled. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

// The service's tables. Behind a transaction pooler (PgBouncer) server connections are shared by every client and
// every schema, so a session's search_path cannot say where they are: each statement names their schema itself.
const TABLES =
  'plants|tokens|owner_versions|idempotency_keys|webhook_subscriptions|webhook_deliveries|schema_migrations';
// A table is referenced after these words only (a column of the same name, such as owner_versions.idempotency_keys,
// never follows one of them).
const TABLE_REFERENCE = new RegExp(`\\b(FROM|JOIN|INTO|UPDATE|TABLE|REFERENCES)(\\s+)(${TABLES})\\b(?!\\.)`, 'gi');

/** `sql` with every reference to one of the service's tables qualified by `schema`. */
export function qualifyTables(sql: string, schema: string): string {
  return sql.replace(TABLE_REFERENCE, (_, word: string, space: string, table: string) => {
    return `${word}${space}${quoteIdent(schema)}.${table}`;
  });
}
