// The pool's default size, apart from postgres-store.ts so that config.ts can name it without loading pg.
/** Connections in the pool by default (DATABASE_POOL_SIZE), per process. */
export const DEFAULT_POOL_SIZE = 10;
