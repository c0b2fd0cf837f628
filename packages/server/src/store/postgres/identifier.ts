// PostgreSQL identifiers written into SQL text (the schema, the change feed's channel) are quoted here and nowhere
// else: unquoted, PostgreSQL folds them to lower case, so `LISTEN plant_store_CaseTest` would listen on
// plant_store_casetest while pg_notify('plant_store_CaseTest', ...) keeps the case, and a mixed-case schema's
// instances would never hear each other.

/** `name` as a quoted identifier: its case kept, any `"` doubled. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
