// The configuration manual (docs/configuration.md) tells the truth: every variable config.ts reads has a row in its
// table (the OpenTelemetry and JWT families one row each), and the defaults it states are the ones loadConfig applies.
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

const ROOT = new URL('../../../../', import.meta.url);
const manual = readFileSync(new URL('docs/configuration.md', ROOT), 'utf8');
const deployment = readFileSync(new URL('docs/deployment.md', ROOT), 'utf8');
const source = readFileSync(new URL('packages/server/src/config.ts', ROOT), 'utf8');

/** The configuration table's rows: variable -> [default, meaning]. */
function configurationTable(): Map<string, [string, string]> {
  const rows = new Map<string, [string, string]>();
  for (const line of manual.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    const name = /^`([A-Z_*]+)`$/.exec(cells[1] ?? '')?.[1];
    if (name) rows.set(name, [cells[2] ?? '', cells[3] ?? '']);
  }
  return rows;
}

it('has a row for every variable config.ts reads', () => {
  const rows = configurationTable();
  const read = new Set([...source.matchAll(/env(?:\.|, ')([A-Z][A-Z0-9_]{2,})/g)].map((match) => match[1] ?? ''));
  const missing = [...read].filter(
    (name) =>
      !rows.has(name) &&
      !(name.startsWith('OTEL_') && rows.has('OTEL_*')) &&
      !(name.startsWith('JWT_') && rows.has('JWT_*')),
  );
  expect(read.size).toBeGreaterThan(30);
  expect(missing).toEqual([]);
  for (const name of ['REDIS_URL', 'DATABASE_POOL_SIZE', 'JWT_*', 'SQLITE_GROUP_COMMIT'])
    expect(rows.has(name)).toBe(true);
  // Each JWT variable is named in its row or in the Deployment manual's table it points to.
  for (const name of source.match(/JWT_[A-Z_]+/g) ?? []) expect(manual + deployment).toContain(name);
});

it('states the defaults loadConfig applies, and the postgres:// form it accepts', () => {
  const rows = configurationTable();
  const config = loadConfig({});
  const stated = (name: string) => rows.get(name)?.[0].match(/`([^`]*)`/)?.[1];
  expect(stated('PORT')).toBe(String(config.port));
  expect(stated('HOST')).toBe(config.host);
  expect(stated('DATABASE_URL')).toBe('sqlite:./data/plant-store.db');
  expect(config.databaseUrl).toContain('data/plant-store.db');
  expect(stated('DATABASE_POOL_SIZE')).toBe(String(config.databasePoolSize));
  expect(stated('SQLITE_GROUP_COMMIT')).toBe(String(config.sqliteGroupCommit));
  expect(stated('ACCESS_LOG')).toBe(String(config.accessLog));
  expect(loadConfig({ ACCESS_LOG: 'true' }).accessLog).toBe(true);
  expect(() => loadConfig({ ACCESS_LOG: 'sometimes' })).toThrow('ACCESS_LOG must be true or false, got "sometimes"');
  expect(config.redisUrl ?? undefined).toBeUndefined();
  expect(rows.get('REDIS_URL')?.[0]).toContain('unset');
  expect(config.jwt ?? undefined).toBeUndefined();
  expect(rows.get('JWT_*')?.[0]).toContain('unset');

  const postgresForm = rows.get('DATABASE_URL')?.[1].match(/`(postgres:\/\/[^`]+)`/)?.[1];
  expect(postgresForm).toBe('postgres://user:password@host:5432/database');
  expect(loadConfig({ DATABASE_URL: postgresForm }).databaseUrl).toBe(postgresForm);
  expect(loadConfig({ REDIS_URL: 'redis://host:6379' }).redisUrl).toBe('redis://host:6379');
});
