// The registry of store engines (store/open-store.ts) is the one switch on DATABASE_URL: the configuration accepts
// exactly the URLs an engine takes and lists every engine's forms when it refuses one, and the start line and the CLI
// describe a database as its engine does.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { describeDatabase } from '../../src/store/describe-database.js';
import { DATABASE_URL_FORMS, engineOf } from '../../src/store/open-store.js';

describe('the engine registry', () => {
  it('names the engine of each DATABASE_URL form, and none for the rest', () => {
    expect(engineOf('sqlite:./data/plants.db')).toBe('sqlite');
    expect(engineOf('sqlite::memory:')).toBe('sqlite');
    expect(engineOf('postgres://app@db/plants')).toBe('postgres');
    expect(engineOf('postgresql://app@db/plants')).toBe('postgres');
    expect(engineOf('memory:')).toBe('memory');
    for (const url of ['sqlite:', 'postgres://', 'mysql://app@db/plants', 'memory', 'plants.db']) {
      expect(engineOf(url)).toBeUndefined();
    }
  });

  it('is what the configuration accepts, and its forms are what a refusal lists', () => {
    expect(DATABASE_URL_FORMS).toBe(
      'sqlite:<file path>, sqlite::memory:, postgres://user@host:port/database or memory:',
    );
    for (const url of ['sqlite:./data/plants.db', 'sqlite::memory:', 'postgres://app@db/plants', 'memory:']) {
      expect(loadConfig({ DATABASE_URL: url }).databaseUrl).toBe(url);
    }
    for (const url of ['sqlite:', 'mysql://app@db/plants']) {
      expect(() => loadConfig({ DATABASE_URL: url })).toThrow(ConfigError);
      expect(() => loadConfig({ DATABASE_URL: url })).toThrow(
        `DATABASE_URL must be ${DATABASE_URL_FORMS}, got "${url}"`,
      );
    }
  });

  it('describes each database as its engine does', () => {
    expect(describeDatabase('sqlite:/var/lib/plants.db')).toBe('the SQLite database /var/lib/plants.db');
    expect(describeDatabase('sqlite::memory:')).toBe('an in-memory SQLite database');
    expect(describeDatabase('memory:')).toBe('the memory engine (nothing is kept)');
    expect(describeDatabase('postgres://app@db/plants')).toBe(
      'the PostgreSQL database plants on db:5432, schema public, user app',
    );
  });
});
