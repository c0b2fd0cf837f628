// Test support: a real 2-node PostgreSQL cluster run by Patroni (Debian's patroni 3.0, etcd-server 3.4, PostgreSQL 15)
// with HAProxy in front following the primary through Patroni's REST check, all in a temporary folder on ports
// outside the kernel's ephemeral range (bind-tested first). PostgreSQL runs as the postgres user. Every process is in
// a process group of its own, killed by stop(), and on this process's exit or a signal whatever happens. A machine
// without one of the binaries fails the test that asks, saying what to install.
import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { sparePortOutsideEphemeral } from './spare-port.js';
import { waitFor } from './wait.js';

const POSTGRES_BIN = '/usr/lib/postgresql/15/bin';
const BINARIES: Record<string, string> = {
  '/usr/bin/patroni': 'patroni',
  '/usr/bin/patronictl': 'patroni',
  '/usr/bin/etcd': 'etcd-server',
  '/usr/sbin/haproxy': 'haproxy',
  [`${POSTGRES_BIN}/postgres`]: 'postgresql-15',
};

export interface PatroniNode {
  name: string;
  pgPort: number;
  restPort: number;
  dataDir: string;
}

/** HAProxy's check timing (its `default-server` line) in Patroni's haproxy.cfg template. */
export const PATRONI_TEMPLATE_CHECKS = 'inter 3s fall 3 rise 2 on-marked-down shutdown-sessions';
/**
 * Checks that find a promoted standby within a quarter second (docs/deployment.md's): with the template's, HAProxy
 * sends nothing to the new primary for up to rise x inter (6 s) after its promotion, whatever the service does.
 */
export const FAST_CHECKS = 'inter 1s fastinter 250ms downinter 250ms rise 1 fall 2 on-marked-down shutdown-sessions';

export interface PatroniCluster {
  readonly nodes: readonly PatroniNode[];
  /** The database through HAProxy, with the query string given. */
  haproxyUrl(query?: string): string;
  /** The database as a libpq-style multi-host URL of both nodes, with the query string given. */
  multiHostUrl(query?: string): string;
  /** The node whose Patroni says it is the primary now (REST `/primary` answers 200), or undefined. */
  leader(): Promise<PatroniNode | undefined>;
  /** Waits until a node other than `previous` is the primary; resolves with it and when it was first seen so. */
  promotedAfter(previous: PatroniNode, timeoutMs?: number): Promise<{ node: PatroniNode; at: number }>;
  /** Waits until there is a leader with a synchronous standby, and HAProxy sends every connection to the leader. */
  healthy(timeoutMs?: number): Promise<PatroniNode>;
  /** `patronictl switchover --force`. */
  switchover(): Promise<void>;
  /** SIGKILL to the node's postmaster (its Patroni stays up). */
  killPostmaster(node: PatroniNode): void;
  /** What the processes printed, for a failed test's message. */
  log(): string;
  stop(): Promise<void>;
}

const run = promisify(execFile);

function missing(): string[] {
  return Object.keys(BINARIES).filter((path) => !existsSync(path));
}

async function answers(url: string, method = 'GET'): Promise<number> {
  try {
    const response = await fetch(url, { method, signal: AbortSignal.timeout(1_000) });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}

/** The port of the server a connection through `url` lands on, or 0. */
async function serverPort(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000, query_timeout: 1_000 });
  client.on('error', () => {});
  try {
    await client.connect();
    return (await client.query<{ port: number }>('SELECT inet_server_port() AS port')).rows[0]!.port;
  } catch {
    return 0;
  } finally {
    await client.end().catch(() => {});
  }
}

export async function startPatroniCluster({ checks = FAST_CHECKS } = {}): Promise<PatroniCluster> {
  const absent = missing();
  if (absent.length > 0) {
    const packages = [...new Set(absent.map((path) => BINARIES[path]))].join(' ');
    throw new Error(
      `the Patroni cluster needs ${absent.join(', ')}: apt-get install -y ${packages} (.ci/run installs them)`,
    );
  }
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-patroni-'));
  const ids = {
    uid: Number(execFileSync('id', ['-u', 'postgres'])),
    gid: Number(execFileSync('id', ['-g', 'postgres'])),
  };
  const children: ChildProcess[] = [];
  let output = '';
  const taken = new Set<number>();
  const [etcdClient, etcdPeer, haproxyPort] = [
    await sparePortOutsideEphemeral(taken),
    await sparePortOutsideEphemeral(taken),
    await sparePortOutsideEphemeral(taken),
  ];
  const nodes: PatroniNode[] = [];
  for (const name of ['node0', 'node1']) {
    nodes.push({
      name,
      pgPort: await sparePortOutsideEphemeral(taken),
      restPort: await sparePortOutsideEphemeral(taken),
      dataDir: join(dir, name, 'data'),
    });
  }

  const start = (name: string, command: string, args: string[], as?: typeof ids): ChildProcess => {
    const child = spawn(command, args, {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(as ?? {}),
      env: { ...process.env, HOME: dir, LC_ALL: 'C.UTF-8' },
    });
    const note = (chunk: Buffer) => {
      output = `${output}${chunk
        .toString()
        .split('\n')
        .filter((line) => line)
        .map((line) => `[${name}] ${line}\n`)
        .join('')}`.slice(-200_000);
    };
    child.stdout?.on('data', note);
    child.stderr?.on('data', note);
    children.push(child);
    return child;
  };
  /** Every process group, and every postmaster (Patroni may start it in a session of its own), killed now. */
  const killAll = () => {
    for (const child of children) {
      if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {}
      }
    }
    for (const node of nodes) {
      const pid = postmasterPid(node);
      if (pid) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {}
      }
    }
  };
  const onSignal = (signal: NodeJS.Signals) => {
    killAll();
    process.kill(process.pid, signal);
  };
  process.once('exit', killAll);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  const stop = async () => {
    // Patroni stops its PostgreSQL on SIGTERM; whatever is left after a few seconds is killed.
    for (const child of children) if (child.pid !== undefined) child.kill('SIGTERM');
    await Promise.race([
      Promise.all(
        children.map(
          (child) =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null || child.signalCode !== null) resolve();
              else child.once('exit', () => resolve());
            }),
        ),
      ),
      new Promise((resolve) => setTimeout(resolve, 8_000)),
    ]);
    killAll();
    process.off('exit', killAll);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    const scope = `plant-store-${randomBytes(4).toString('hex')}`;
    start('etcd', '/usr/bin/etcd', [
      `--name=${scope}`,
      `--data-dir=${join(dir, 'etcd')}`,
      `--listen-client-urls=http://127.0.0.1:${etcdClient}`,
      `--advertise-client-urls=http://127.0.0.1:${etcdClient}`,
      `--listen-peer-urls=http://127.0.0.1:${etcdPeer}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeer}`,
      `--initial-cluster=${scope}=http://127.0.0.1:${etcdPeer}`,
      `--initial-cluster-token=${scope}`,
      '--initial-cluster-state=new',
    ]);
    await waitFor(
      `etcd to be healthy: ${output}`,
      async () => (await answers(`http://127.0.0.1:${etcdClient}/health`)) === 200,
    );

    for (const node of nodes) {
      const home = join(dir, node.name);
      mkdirSync(home, { recursive: true });
      chownSync(home, ids.uid, ids.gid);
      const config = join(home, 'patroni.yml');
      writeFileSync(config, patroniConfig(scope, node, home, etcdClient));
      chownSync(config, ids.uid, ids.gid);
    }
    chownSync(dir, ids.uid, ids.gid);
    // The first node bootstraps the cluster; the second then copies it (pg_basebackup) and follows as its standby.
    start(nodes[0]!.name, '/usr/bin/patroni', [join(dir, nodes[0]!.name, 'patroni.yml')], ids);
    await waitFor(
      `${nodes[0]!.name} to be the primary: ${output}`,
      async () => {
        return (await answers(`http://127.0.0.1:${nodes[0]!.restPort}/primary`)) === 200;
      },
      { timeoutMs: 60_000, everyMs: 200 },
    );
    start(nodes[1]!.name, '/usr/bin/patroni', [join(dir, nodes[1]!.name, 'patroni.yml')], ids);

    const haproxyConfig = join(dir, 'haproxy.cfg');
    writeFileSync(
      haproxyConfig,
      [
        'global',
        '  maxconn 400',
        'defaults',
        '  mode tcp',
        '  retries 2',
        '  timeout connect 2s',
        '  timeout client 30m',
        '  timeout server 30m',
        '  timeout check 1s',
        'listen primary',
        `  bind 127.0.0.1:${haproxyPort}`,
        '  option httpchk OPTIONS /primary',
        '  http-check expect status 200',
        `  default-server ${checks}`,
        ...nodes.map(
          (node) => `  server ${node.name} 127.0.0.1:${node.pgPort} maxconn 100 check port ${node.restPort}`,
        ),
        '',
      ].join('\n'),
    );
    start('haproxy', '/usr/sbin/haproxy', ['-db', '-f', haproxyConfig]);
  } catch (error) {
    await stop();
    throw error;
  }

  const url = (hosts: string, query?: string) => `postgres://postgres@${hosts}/postgres${query ? `?${query}` : ''}`;
  const leader = async () => {
    const found = await Promise.all(
      nodes.map(async (node) =>
        (await answers(`http://127.0.0.1:${node.restPort}/primary`)) === 200 ? node : undefined,
      ),
    );
    return found.find((node) => node !== undefined);
  };
  const cluster: PatroniCluster = {
    nodes,
    haproxyUrl: (query) => url(`127.0.0.1:${haproxyPort}`, query),
    multiHostUrl: (query) => url(nodes.map((node) => `127.0.0.1:${node.pgPort}`).join(','), query),
    leader,
    async promotedAfter(previous, timeoutMs = 60_000) {
      let promoted: PatroniNode | undefined;
      await waitFor(
        `a node other than ${previous.name} to be promoted: ${output.slice(-4_000)}`,
        async () => {
          const now = await leader();
          if (now && now !== previous) promoted = now;
          return promoted !== undefined;
        },
        { timeoutMs, everyMs: 50 },
      );
      return { node: promoted!, at: Date.now() };
    },
    async healthy(timeoutMs = 120_000) {
      let found: PatroniNode | undefined;
      await waitFor(
        `a leader with a synchronous standby, and HAProxy sending every connection to it: ${output.slice(-4_000)}`,
        async () => {
          const response = await fetch(`http://127.0.0.1:${nodes[0]!.restPort}/cluster`, {
            signal: AbortSignal.timeout(1_000),
          }).catch(() => undefined);
          if (response?.status !== 200) return false;
          const { members } = (await response.json()) as { members: { name: string; role: string; state: string }[] };
          const lead = members.find((member) => member.role === 'leader' && member.state === 'running');
          const sync = members.find((member) => member.role === 'sync_standby' && member.state !== 'stopped');
          found = nodes.find((node) => node.name === lead?.name);
          if (!found || !sync) return false;
          // HAProxy starts with every server up: only once the standby failed its checks does each connection land on
          // the leader.
          const ports = await Promise.all([1, 2, 3, 4].map(() => serverPort(cluster.haproxyUrl())));
          return ports.every((port) => port === found!.pgPort);
        },
        { timeoutMs, everyMs: 250 },
      );
      return found!;
    },
    async switchover() {
      await run('/usr/bin/patronictl', ['-c', join(dir, nodes[0]!.name, 'patroni.yml'), 'switchover', '--force'], {
        timeout: 30_000,
      });
    },
    killPostmaster(node) {
      const pid = postmasterPid(node);
      if (!pid) throw new Error(`${node.name} has no running postmaster`);
      process.kill(pid, 'SIGKILL');
    },
    log: () => output,
    stop,
  };
  return cluster;
}

function postmasterPid(node: PatroniNode): number | undefined {
  try {
    const pid = Number(readFileSync(join(node.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    if (!pid) return undefined;
    process.kill(pid, 0);
    return pid;
  } catch {
    return undefined;
  }
}

function patroniConfig(scope: string, node: PatroniNode, home: string, etcdClient: number): string {
  // ttl 10, loop_wait 2, retry_timeout 4: a failover in seconds; primary_start_timeout 0: a killed primary fails over
  // rather than being restarted in place. synchronous_mode: an acknowledged commit is on the standby too.
  return `scope: ${scope}
namespace: /${scope}/
name: ${node.name}
log:
  level: INFO
restapi:
  listen: 127.0.0.1:${node.restPort}
  connect_address: 127.0.0.1:${node.restPort}
etcd3:
  hosts: 127.0.0.1:${etcdClient}
bootstrap:
  dcs:
    ttl: 10
    loop_wait: 2
    retry_timeout: 4
    maximum_lag_on_failover: 1048576
    primary_start_timeout: 0
    synchronous_mode: true
    postgresql:
      use_pg_rewind: true
      parameters:
        wal_level: replica
        hot_standby: "on"
        wal_log_hints: "on"
        max_wal_senders: 10
        max_replication_slots: 10
        max_connections: 100
        shared_buffers: 32MB
  initdb:
    - encoding: UTF8
    - auth: trust
postgresql:
  listen: 127.0.0.1:${node.pgPort}
  connect_address: 127.0.0.1:${node.pgPort}
  data_dir: ${node.dataDir}
  bin_dir: ${POSTGRES_BIN}
  pgpass: ${join(home, 'pgpass')}
  use_pg_rewind: true
  remove_data_directory_on_rewind_failure: true
  remove_data_directory_on_diverged_timelines: true
  authentication:
    superuser:
      username: postgres
    replication:
      username: postgres
    rewind:
      username: postgres
  parameters:
    unix_socket_directories: ${home}
  pg_hba:
    - local all all trust
    - host all all 127.0.0.1/32 trust
    - host replication all 127.0.0.1/32 trust
`;
}
