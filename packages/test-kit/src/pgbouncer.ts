// Test support: Debian's PgBouncer in transaction mode in front of the machine's PostgreSQL, on a spare port, with its
// own configuration in a temporary folder (trust authentication, Debian's defaults otherwise). Run as the postgres
// user when the tests run as root (PgBouncer refuses to run as root). A machine without it fails the test that asks,
// with how to install it.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { POSTGRES_URL, waitFor } from '@plant-store/test-kit';
import pg from 'pg';
import { sparePort } from './spare-port.js';

export interface PgBouncer {
  /** POSTGRES_URL through PgBouncer, with `?schema=` when a schema is given. */
  url(schema?: string): string;
  /** What PgBouncer logged so far. */
  log(): string;
  stop(): Promise<void>;
}

const BINARY = '/usr/sbin/pgbouncer';

function installed(): boolean {
  try {
    execFileSync(BINARY, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export async function startPgBouncer(): Promise<PgBouncer> {
  if (!installed()) {
    throw new Error(`PgBouncer is not installed (${BINARY}): apt-get install -y pgbouncer (.ci/run installs it)`);
  }
  const target = new URL(POSTGRES_URL);
  const user = decodeURIComponent(target.username || 'postgres');
  const database = target.pathname.slice(1);
  const port = await sparePort();
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-pgbouncer-'));
  const config = join(dir, 'pgbouncer.ini');
  writeFileSync(join(dir, 'userlist.txt'), `"${user}" ""\n`);
  writeFileSync(
    config,
    [
      '[databases]',
      `${database} = host=${target.hostname} port=${target.port || 5432} dbname=${database}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'userlist.txt')}`,
      'pool_mode = transaction',
      `pidfile = ${join(dir, 'pgbouncer.pid')}`,
      '',
    ].join('\n'),
  );
  const root = process.getuid?.() === 0;
  const ids = root
    ? { uid: Number(execFileSync('id', ['-u', 'postgres'])), gid: Number(execFileSync('id', ['-g', 'postgres'])) }
    : {};
  if (root) {
    for (const path of [dir, config, join(dir, 'userlist.txt')]) chownSync(path, ids.uid!, ids.gid!);
  }
  const child: ChildProcess = spawn(BINARY, [config], { ...ids, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout?.on('data', (chunk) => {
    log += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    log += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = (schema?: string) =>
    `postgres://${encodeURIComponent(user)}@127.0.0.1:${port}/${database}${schema ? `?schema=${schema}` : ''}`;
  await waitFor(`PgBouncer to accept connections: ${log}`, async () => {
    const client = new pg.Client({ connectionString: url() });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return true;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => {});
    }
  });
  return {
    url,
    log: () => log,
    async stop() {
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
