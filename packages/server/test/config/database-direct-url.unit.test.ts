// DATABASE_DIRECT_URL: optional, a postgres:// URL, and only beside a PostgreSQL DATABASE_URL (the pooler's).
import { expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

const pooler = 'postgres://app@127.0.0.1:6432/plants?schema=store';
const direct = 'postgres://app@127.0.0.1:5432/plants';

it('is null unless set, and kept as given beside a PostgreSQL DATABASE_URL', () => {
  expect(loadConfig({ DATABASE_URL: pooler }).databaseDirectUrl).toBeNull();
  expect(loadConfig({ DATABASE_URL: pooler, DATABASE_DIRECT_URL: ` ${direct} ` }).databaseDirectUrl).toBe(direct);
});

it('refuses a value that is not postgres://, and one beside a SQLite DATABASE_URL', () => {
  expect(() => loadConfig({ DATABASE_URL: pooler, DATABASE_DIRECT_URL: 'mysql://x' })).toThrow(
    /DATABASE_DIRECT_URL must be postgres:/,
  );
  expect(() => loadConfig({ DATABASE_URL: 'sqlite:./x.db', DATABASE_DIRECT_URL: direct })).toThrow(
    /DATABASE_DIRECT_URL is for a PostgreSQL DATABASE_URL/,
  );
});
