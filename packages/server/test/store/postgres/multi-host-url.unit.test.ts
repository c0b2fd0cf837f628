// A libpq-style PostgreSQL URL: several hosts split into one plain URL each, target_session_attrs read (read-write
// unless said), the store's own parameters taken out, and a clear refusal of what the store cannot follow.
import { expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { describePostgresUrl } from '../../../src/store/postgres/describe-url.js';
import { parsePostgresUrl } from '../../../src/store/postgres/multi-host-url.js';

it('splits the hosts in order, keeping credentials, database and PostgreSQL parameters for each', () => {
  const target = parsePostgresUrl(
    'postgres://app:s%40cret@pg1:5432,pg2,[::1]:5433/plants?schema=store&target_session_attrs=any&sslmode=disable',
  );
  expect(target.hosts).toEqual([
    { address: 'pg1:5432', connectionString: 'postgres://app:s%40cret@pg1:5432/plants?sslmode=disable' },
    { address: 'pg2:5432', connectionString: 'postgres://app:s%40cret@pg2/plants?sslmode=disable' },
    { address: '[::1]:5433', connectionString: 'postgres://app:s%40cret@[::1]:5433/plants?sslmode=disable' },
  ]);
  expect(target.schema).toBe('store');
  expect(target.targetSessionAttrs).toBe('any');
});

it('asks for a server that takes writes unless told otherwise, and takes one host as before', () => {
  const target = parsePostgresUrl('postgres://postgres@127.0.0.1:5432/test');
  expect(target.targetSessionAttrs).toBe('read-write');
  expect(target.hosts).toEqual([
    { address: '127.0.0.1:5432', connectionString: 'postgres://postgres@127.0.0.1:5432/test' },
  ]);
  expect(target.schema).toBeNull();
});

it('refuses a target the service cannot write through and an empty host, naming the setting', () => {
  expect(() => loadConfig({ DATABASE_URL: 'postgres://pg1,pg2/db?target_session_attrs=standby' })).toThrow(
    'DATABASE_URL\'s target_session_attrs must be read-write, primary, any (the service writes), got "standby"',
  );
  expect(() =>
    loadConfig({ DATABASE_URL: 'postgres://pg1/db', DATABASE_DIRECT_URL: 'postgres://pg1,,pg2/db' }),
  ).toThrow('DATABASE_DIRECT_URL names an empty host in "pg1,,pg2"');
  expect(() => loadConfig({ DATABASE_URL: 'postgres://pg1:x,pg2/db' })).toThrow(
    'DATABASE_URL has a host that is not host or host:port: "pg1:x"',
  );
  expect(loadConfig({ DATABASE_URL: 'postgres://app@pg1:5432,pg2:5432/db' }).databaseUrl).toBe(
    'postgres://app@pg1:5432,pg2:5432/db',
  );
});

it('describes every host and the server it looks for, never the password', () => {
  expect(describePostgresUrl('postgres://app:secret@pg1:5432,pg2:5433/plants?schema=store')).toBe(
    'the PostgreSQL database plants on the read-write server of pg1:5432, pg2:5433, schema store, user app',
  );
  expect(describePostgresUrl('postgres://app@pg1/plants')).toBe(
    'the PostgreSQL database plants on pg1:5432, schema public, user app',
  );
});
