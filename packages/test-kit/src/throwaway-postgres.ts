// Test support: a PostgreSQL server of its own (Debian's PostgreSQL 15: initdb into a temporary folder, trust
// authentication, a spare port outside the ephemeral range), run as the postgres user, for what a test must not do to
// the machine's shared server: change its settings (synchronous_standby_names, say). stop() kills it and removes it.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { sparePortOutsideEphemeral } from './spare-port.js';
import { waitFor } from './wait.js';

const BIN = '/usr/lib/postgresql/15/bin';

export interface ThrowawayPostgres {
  /** The `postgres` database as the postgres user. */
  url: string;
  stop(): Promise<void>;
}

export async function startThrowawayPostgres(settings: Record<string, string> = {}): Promise<ThrowawayPostgres> {
  if (!existsSync(`${BIN}/initdb`)) throw new Error(`${BIN}/initdb is missing: apt-get install -y postgresql-15`);
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-postgres-'));
  const ids = {
    uid: Number(execFileSync('id', ['-u', 'postgres'])),
    gid: Number(execFileSync('id', ['-g', 'postgres'])),
  };
  const as = process.getuid?.() === 0 ? ids : {};
  if (process.getuid?.() === 0) chownSync(dir, ids.uid, ids.gid);
  const data = join(dir, 'data');
  execFileSync(`${BIN}/initdb`, ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8'], {
    ...as,
    stdio: 'ignore',
    timeout: 60_000,
  });
  const port = await sparePortOutsideEphemeral();
  const options = Object.entries({ listen_addresses: '127.0.0.1', unix_socket_directories: dir, ...settings });
  const child: ChildProcess = spawn(
    `${BIN}/postgres`,
    ['-D', data, '-p', String(port), ...options.flatMap(([name, value]) => ['-c', `${name}=${value}`])],
    { ...as, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  child.stderr?.on('data', (chunk) => {
    log += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  const stop = async () => {
    child.kill('SIGQUIT');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
    child.kill('SIGKILL');
    await exited;
    process.off('exit', kill);
    rmSync(dir, { recursive: true, force: true });
  };
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  try {
    await waitFor(`the throwaway PostgreSQL to accept connections: ${log}`, async () => {
      const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
      client.on('error', () => {});
      try {
        await client.connect();
        return true;
      } catch {
        return false;
      } finally {
        await client.end().catch(() => {});
      }
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, stop };
}
