// The start names the database it serves, and where that setting came from: PostgreSQL by database, host, schema and
// user (never the password), SQLite by its file, and the default said to be the default.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase } from '@plant-store/test-kit';
import { type ServerProcess, startServerProcess, stopAll } from '@plant-store/test-kit/server-process';
import { afterEach, expect, it } from 'vitest';

const started: ServerProcess[] = [];
afterEach(async () => {
  await stopAll(started.splice(0));
});

/** The message of the log line that says what the service serves. */
function servingLine(output: string): string | undefined {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => (JSON.parse(line) as { msg: string }).msg)
    .find((message) => message.startsWith('serving '));
}

it('names the PostgreSQL database, host, schema and user, never the password', async () => {
  const database = createTestDatabase('postgres', { schemaPrefix: 'start_line_' });
  // Trust authentication: the password is never asked for, so any will do; it must not be printed.
  const url = new URL(database.url);
  url.password = 'hunter2-secret';
  try {
    const server = await startServerProcess({ DATABASE_URL: url.href });
    started.push(server);
    expect(servingLine(server.output()), server.output()).toBe(
      `serving the PostgreSQL database ${url.pathname.slice(1)} on ${url.host}, schema ${database.schema}, user ${url.username} (DATABASE_URL)`,
    );
    expect(server.output() + server.errors()).not.toContain('hunter2-secret');
  } finally {
    await stopAll(started.splice(0));
    await database.drop();
  }
});

it('says when the database is the default because DATABASE_URL is not set', async () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'plant-store-start-line-')));
  try {
    const { DATABASE_URL: _unset, ...baseEnv } = process.env;
    const server = await startServerProcess({}, [], { baseEnv, cwd: dir });
    started.push(server);
    expect(servingLine(server.output()), server.output()).toBe(
      `serving the SQLite database ${join(dir, 'data', 'plant-store.db')} (the default, as DATABASE_URL is not set)`,
    );
  } finally {
    await stopAll(started.splice(0));
    rmSync(dir, { recursive: true, force: true });
  }
});
