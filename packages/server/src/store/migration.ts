// A schema migration as both databases' lists hold it; each engine's store applies its list in order, each in its
// own transaction, recording the version in schema_migrations.

export interface Migration {
  version: number;
  description: string;
  sql: string;
}
