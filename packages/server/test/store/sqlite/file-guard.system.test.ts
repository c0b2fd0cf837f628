// At start-up: when the SQLite files are deleted under a running service, the next start must not
// create an empty database in their place and carry on as if nothing happened. `plant-store serve` and the token
// commands refuse with a message naming the way out; `plant-store migrate` creates a new database on purpose. A path
// that never held a database still starts fresh (the quick start), and says so in its log.
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, rmSync } from 'node:fs';
import { promisify } from 'node:util';
import { createTestDatabase, type TestDatabase, waitFor } from '@plant-store/test-kit';
import { BIN, type ServerProcess, startServerProcess } from '@plant-store/test-kit/server-process';
import { afterEach, describe, expect, it } from 'vitest';

let database: TestDatabase;
let server: ServerProcess | undefined;
afterEach(async () => {
  if (server && server.child.exitCode === null) {
    server.child.kill('SIGKILL');
    await server.exited;
  }
  server = undefined;
  await database.drop();
});

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [BIN, ...args], {
      env: { ...process.env, DATABASE_URL: database.url },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string };
    return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
  }
}

const fileOf = () => database.url.slice('sqlite:'.length);
const deleteDatabaseFiles = () => {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${fileOf()}${suffix}`, { force: true });
};

async function createPlant(url: string, token: string, id: number) {
  return fetch(`${url}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id, name: 'Fern' }),
  });
}

describe('start-up after the SQLite database was lost', () => {
  it('refuses to serve on a database deleted while the service ran, until migrate creates one on purpose', async () => {
    database = createTestDatabase('sqlite');
    server = await startServerProcess({ DATABASE_URL: database.url });
    expect(server.output()).toContain('created a new, empty SQLite database');
    const token = (await cli('token', 'create', '--subject', 'alice')).stdout.trim().split('\n').at(-1)!;
    expect((await createPlant(server.url, token, 1)).status).toBe(200);

    deleteDatabaseFiles();
    expect((await fetch(`${server.url}/readyz`)).status).toBe(503);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(existsSync(fileOf())).toBe(false);

    const refused = await startServerProcess({ DATABASE_URL: database.url }).then(
      () => 'started',
      (error: Error) => error.message,
    );
    expect(refused).toContain('server exited (2) before listening');
    expect(refused).toContain(`the SQLite database ${fileOf()} was lost while the service ran`);
    expect(refused).toContain('plant-store migrate');
    expect(existsSync(fileOf())).toBe(false); // nothing was created in its place

    const tokenCommand = await cli('token', 'list');
    expect(tokenCommand.code).toBe(2);
    expect(tokenCommand.stderr).toContain('was lost while the service ran');

    const migrated = await cli('migrate');
    expect(migrated.code).toBe(0);
    expect(migrated.stderr).toContain(`Creating a new, empty database at ${fileOf()}.`);
    server = await startServerProcess({ DATABASE_URL: database.url });
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  });

  it('notices the deletion within about a second, so a crash after it still leaves the evidence', async () => {
    database = createTestDatabase('sqlite');
    server = await startServerProcess({ DATABASE_URL: database.url });
    deleteDatabaseFiles();
    await waitFor('the tombstone', () => existsSync(`${fileOf()}.lost`), { timeoutMs: 5000 });
    server.child.kill('SIGKILL');
    await server.exited;
    const refused = await cli('serve');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('was lost while the service ran');
  });

  it('refuses a missing database file whose write-ahead log is still there', async () => {
    database = createTestDatabase('sqlite');
    server = await startServerProcess({ DATABASE_URL: database.url });
    const token = (await cli('token', 'create', '--subject', 'bob')).stdout.trim().split('\n').at(-1)!;
    expect((await createPlant(server.url, token, 1)).status).toBe(200);
    // A crash right after `rm plant-store.db`, before the service could notice: the -wal stays behind.
    rmSync(fileOf());
    server.child.kill('SIGKILL');
    await server.exited;
    rmSync(`${fileOf()}.lost`, { force: true });
    expect(existsSync(`${fileOf()}-wal`)).toBe(true);
    const refused = await cli('serve');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`the SQLite database ${fileOf()} is missing but ${fileOf()}-wal`);
    expect(existsSync(fileOf())).toBe(false);
  });

  it('starts again on a database restored from a backup, and forgets the loss', async () => {
    database = createTestDatabase('sqlite');
    expect((await cli('migrate')).code).toBe(0);
    const token = (await cli('token', 'create', '--subject', 'carol')).stdout.trim().split('\n').at(-1)!;
    const backup = `${fileOf()}.backup`;
    copyFileSync(fileOf(), backup); // no process has it open: the file alone is the whole database
    server = await startServerProcess({ DATABASE_URL: database.url });
    deleteDatabaseFiles();
    server.child.kill('SIGTERM');
    await server.exited;
    expect(existsSync(`${fileOf()}.lost`)).toBe(true);
    copyFileSync(backup, fileOf());
    server = await startServerProcess({ DATABASE_URL: database.url });
    expect((await createPlant(server.url, token, 7)).status).toBe(200);
    expect(server.output()).not.toContain('created a new, empty SQLite database');
    expect(existsSync(`${fileOf()}.lost`)).toBe(false);
  });
});
