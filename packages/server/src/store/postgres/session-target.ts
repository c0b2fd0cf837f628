// Which PostgreSQL server the store's connections use. Every new connection first asks the server it reached what it
// is, and one that is not what target_session_attrs asks for (a standby in recovery, or read-only, for read-write) is
// closed and refused as an unavailable database: through a proxy still pointing at a demoted primary, the next
// connection dials again instead of writing into a standby. With several hosts (multi-host-url.ts) the last good one
// is dialled; when it fails, every host is asked at once and the first in the URL's order that qualifies is kept.
import pg from 'pg';
import type { PostgresTarget, TargetSessionAttrs } from './multi-host-url.js';

/** A connection reached a server target_session_attrs refuses (a standby, or a read-only one for read-write). */
export class WrongServerError extends Error {
  override name = 'WrongServerError';
  /** PostgreSQL's read_only_sql_transaction: the store classifies it with the server's own. */
  readonly code = '25006';
}

// The server's start time names the running server: a primary and its standby, or one server before and after a
// restart, differ (the store forgets its caches when it changes).
const ROLE = `SELECT pg_is_in_recovery() AS standby, current_setting('transaction_read_only') = 'on' AS read_only,
  pg_postmaster_start_time()::text AS server`;

interface Role {
  standby: boolean;
  read_only: boolean;
  server: string;
}

function refusal(role: Role, attrs: TargetSessionAttrs): string | undefined {
  if (attrs === 'any') return undefined;
  if (role.standby) return 'is a standby (in recovery): only a standby is reachable';
  if (attrs === 'read-write' && role.read_only) return 'is read-only (default_transaction_read_only is on)';
  return undefined;
}

// With synchronous replication a COMMIT whose wait for the standby is cancelled (a statement_timeout, a
// pg_cancel_backend) succeeds with this warning, committed on the primary alone: a failover may lose it.
const UNREPLICATED = /canceling (the )?wait for synchronous replication/;
const unreplicated = new WeakSet<pg.Client>();

/** Whether a commit on `client` since the last ask succeeded unreplicated (see UNREPLICATED); forgets it. */
export function committedUnreplicated(client: pg.ClientBase): boolean {
  return unreplicated.delete(client as pg.Client);
}

export interface SessionTargetOptions {
  /** The deadline of asking one host, in ms. */
  probeMs: number;
  /** Told the server (its start time) each new connection reached. */
  onServer(server: string): void;
}

/** A pg.Client class (pg.Pool's `Client` option) whose connections reach the server `target` asks for. */
export function sessionClient(target: PostgresTarget, { probeMs, onServer }: SessionTargetOptions): typeof pg.Client {
  const { hosts, targetSessionAttrs: attrs } = target;
  let current: number | undefined = hosts.length === 1 ? 0 : undefined;
  let asking: Promise<number> | undefined;

  const roleOf = async (client: pg.Client, address: string): Promise<Role> => {
    const role = (await client.query<Role>(ROLE)).rows[0]!;
    const refused = refusal(role, attrs);
    if (refused) throw new WrongServerError(`the PostgreSQL server at ${address} ${refused}`);
    return role;
  };
  // Every host at once, each within probeMs; the first in the URL's order that qualifies wins.
  const ask = async (): Promise<number> => {
    const answers = await Promise.allSettled(
      hosts.map(async ({ address, connectionString }) => {
        const probe = new pg.Client({ connectionString, connectionTimeoutMillis: probeMs, query_timeout: probeMs });
        probe.on('error', () => {});
        try {
          await probe.connect();
          await roleOf(probe, address);
        } finally {
          await probe.end().catch(() => {});
        }
      }),
    );
    const found = answers.findIndex((answer) => answer.status === 'fulfilled');
    if (found >= 0) return found;
    // A standby found says more than an unreachable host: it is why no server qualifies.
    const reasons = answers.map((answer) => (answer as PromiseRejectedResult).reason as Error);
    throw reasons.find((reason) => reason instanceof WrongServerError) ?? reasons[0]!;
  };
  const pick = (): number | Promise<number> => {
    if (current !== undefined) return current;
    asking ??= ask().finally(() => {
      asking = undefined;
    });
    return asking.then((index) => {
      current = index;
      return index;
    });
  };
  const forget = (index: number) => {
    if (hosts.length > 1 && current === index) current = undefined;
  };

  return class SessionClient extends pg.Client {
    constructor(config?: string | pg.ClientConfig) {
      super(config);
      // A connection lost while checked out fails the statement it carries; unheard, the event would end the process.
      this.on('error', () => {});
      this.on('notice', (notice) => {
        if (UNREPLICATED.test(notice.message ?? '')) unreplicated.add(this);
      });
    }

    override connect(): Promise<pg.Client>;
    override connect(callback: (err: Error) => void): void;
    override connect(callback?: (err: Error) => void): Promise<pg.Client> | undefined {
      const opened = this.#open();
      if (!callback) return opened;
      opened.then(() => callback(undefined as never), callback);
      return undefined;
    }

    async #open(): Promise<pg.Client> {
      const index = await pick();
      const { address, connectionString } = hosts[index]!;
      // The class was made with the first host's URL; the others differ from it in host and port alone.
      const chosen = new URL(connectionString);
      const self = this as unknown as { host: string; port: number };
      self.host = chosen.hostname.replace(/^\[(.*)\]$/, '$1') || self.host;
      self.port = Number(chosen.port || 5432);
      try {
        await super.connect();
        onServer((await roleOf(this, address)).server);
        return this;
      } catch (error) {
        forget(index);
        await this.end().catch(() => {});
        throw error;
      }
    }
  };
}
