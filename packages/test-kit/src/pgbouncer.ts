// Test support: Debian's PgBouncer in transaction mode in front of the machine's PostgreSQL, on a spare port, with its
// own configuration in a temporary folder (trust authentication, Debian's defaults otherwise), or a manual's
// configuration loaded as printed. Run as the postgres user when the tests run as root (PgBouncer refuses to run as
// root). A machine without it fails the test that asks, with how to install it.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { POSTGRES_URL, waitFor } from '@plant-store/test-kit';
import pg from 'pg';
import { endWithWorker, marked } from './process-guard.js';
import { sparePort } from './spare-port.js';

export interface PgBouncer {
  /** POSTGRES_URL through PgBouncer (its database under the name PgBouncer gives it), `?schema=` when given. */
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

/**
 * Starts PgBouncer. With `manual` (a pgbouncer.ini as a manual prints it, ending in its [pgbouncer] section) that file
 * is loaded unchanged, every line of it parsed by PgBouncer, through `%include`; only what a test machine must have
 * otherwise follows it: a spare port, this run's auth_file and pidfile, and the manual's first database pointed at
 * the test database.
 */
export async function startPgBouncer({ manual }: { manual?: string } = {}): Promise<PgBouncer> {
  if (!installed()) {
    throw new Error(`PgBouncer is not installed (${BINARY}): apt-get install -y pgbouncer (.ci/run installs it)`);
  }
  const target = new URL(POSTGRES_URL);
  const user = decodeURIComponent(target.username || 'postgres');
  const database = target.pathname.slice(1);
  const port = await sparePort();
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-pgbouncer-'));
  const config = join(dir, 'pgbouncer.ini');
  const printed = join(dir, 'manual.ini');
  const upstream = `host=${target.hostname} port=${target.port || 5432} dbname=${database}`;
  // [pgbouncer] settings; that section's header is written once (PgBouncer 1.18 starts it afresh at a second one).
  const local = [
    `listen_port = ${port}`,
    'unix_socket_dir =',
    `auth_file = ${join(dir, 'userlist.txt')}`,
    `pidfile = ${join(dir, 'pgbouncer.pid')}`,
  ];
  if (manual !== undefined && !/\[pgbouncer\][^[]*$/.test(manual)) {
    throw new Error(`the configuration must end in its [pgbouncer] section: ${manual}`);
  }
  // The name clients connect to: the manual's first database, else the test database's own.
  const name = manual === undefined ? database : /^\[databases\]\n(\S+) =/m.exec(manual)?.[1];
  if (name === undefined) throw new Error(`the configuration defines no database: ${manual}`);
  writeFileSync(join(dir, 'userlist.txt'), `"${user}" ""\n`);
  if (manual !== undefined) writeFileSync(printed, manual);
  writeFileSync(
    config,
    [
      ...(manual === undefined
        ? [
            '[databases]',
            `${database} = ${upstream}`,
            '[pgbouncer]',
            'listen_addr = 127.0.0.1',
            ...local,
            'auth_type = trust',
            'pool_mode = transaction',
          ]
        : [`%include ${printed}`, ...local, '[databases]', `${name} = ${upstream}`]),
      '',
    ].join('\n'),
  );
  const root = process.getuid?.() === 0;
  const ids = root
    ? { uid: Number(execFileSync('id', ['-u', 'postgres'])), gid: Number(execFileSync('id', ['-g', 'postgres'])) }
    : {};
  if (root) {
    for (const path of [dir, config, join(dir, 'userlist.txt'), ...(manual ? [printed] : [])]) {
      chownSync(path, ids.uid!, ids.gid!);
    }
  }
  const child: ChildProcess = spawn(BINARY, [config], {
    ...ids,
    env: marked(process.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  endWithWorker(child);
  let log = '';
  child.stdout?.on('data', (chunk) => {
    log += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    log += chunk;
  });
  let ended = false;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      ended = true;
      resolve();
    }),
  );
  const url = (schema?: string) =>
    `postgres://${encodeURIComponent(user)}@127.0.0.1:${port}/${name}${schema ? `?schema=${schema}` : ''}`;
  await waitFor(`PgBouncer to accept connections: ${log}`, async () => {
    // A configuration it refuses ends it at once: say so with its words, rather than waiting out the deadline.
    if (ended) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`PgBouncer exited at start: ${log}`);
    }
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
