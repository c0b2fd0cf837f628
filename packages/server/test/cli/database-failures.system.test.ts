// A command that cannot open its PostgreSQL database says why, not only "unreachable": a database that does not
// exist, a login the server refuses, nothing listening. The machine's cluster on 127.0.0.1:5432 (trust auth).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { POSTGRES_URL } from '@plant-store/test-kit';
import { BIN } from '@plant-store/test-kit/server-process';
import { expect, it } from 'vitest';

async function serveOn(databaseUrl: string): Promise<{ code: number; stderr: string }> {
  try {
    await promisify(execFile)(process.execPath, [BIN, 'serve'], {
      env: { ...process.env, DATABASE_URL: databaseUrl, PORT: '0', METRICS_PORT: 'off', LOG_LEVEL: 'silent' },
      timeout: 20_000,
    });
    return { code: 0, stderr: '' };
  } catch (error) {
    const failed = error as { code: number; stderr: string };
    return { code: failed.code, stderr: failed.stderr };
  }
}

const withDatabase = (name: string) => {
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  return url.toString();
};

it('names a database that does not exist', async () => {
  const { code, stderr } = await serveOn(withDatabase('plant_store_no_such_database'));
  expect(code).toBe(1);
  expect(stderr).toContain('database "plant_store_no_such_database" does not exist (3D000)');
  expect(stderr).toContain('create it');
}, 30_000);

it('names a login the server refuses', async () => {
  const url = new URL(POSTGRES_URL);
  url.username = 'plant_store_no_such_role';
  const { code, stderr } = await serveOn(url.toString());
  expect(code).toBe(1);
  expect(stderr).toMatch(/role "plant_store_no_such_role" does not exist \(28000\)|authentication failed/);
}, 30_000);

it('names the address where nothing listens', async () => {
  const url = new URL(POSTGRES_URL);
  url.port = '1';
  const { code, stderr } = await serveOn(url.toString());
  expect(code).toBe(1);
  expect(stderr).toContain(`connect ECONNREFUSED ${url.hostname}:1`);
}, 30_000);
