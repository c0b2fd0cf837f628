// The PostgreSQL store's change feed: one dedicated connection LISTENs on the schema's channel, and every commit
// that changes plants or tokens sends a NOTIFY in its own transaction (delivered at commit, to every instance). The
// token cache of an instance is trusted only while its feed is live: from the moment it received its own first
// heartbeat notification on the channel (so notifications demonstrably reach it, not merely its connection) until
// the connection fails or a heartbeat does not come back in time. While it is down, the store reads tokens through to
// the database, and it empties that cache when the feed comes back, since notifications sent meanwhile were lost.
// (Pages do not depend on it: the read barrier checks them; a plant's NOTIFY only frees its owner's pages early.)
import pg from 'pg';
import { quoteIdent } from './identifier.js';

/**
 * A notification's payload: `<origin>|p:<owner>` for a change to that owner's plants, `<origin>|t` for a change to
 * tokens, `<origin>|h:<n>` for a feed's heartbeat (meant for its sender only). The origin names the store that made the change: it invalidated its own caches already (after its commit),
 * so the echo of its own NOTIFY is ignored rather than dropping the pages it has cached since.
 */
export type Change = { kind: 'plants'; owner: string } | { kind: 'tokens' };

export interface ChangeFeedOptions {
  /** The connection string (without the `schema` parameter). */
  connectionString: string;
  /** The client class to connect with (session-target.ts: one that reaches the primary); pg.Client unless given. */
  Client?: typeof pg.Client;
  /** Told each failure of the connection or of connecting, and when the feed is live again. */
  onLost?: (error: unknown) => void;
  onLive?: () => void;
  /** The channel, one per schema: LISTEN/NOTIFY channels are database-wide. */
  channel: string;
  /** This store's origin (see `notifyPrefix`): notifications it sent itself are not passed on. */
  origin: string;
  /** Called for every change, and with `undefined` for "anything may have changed" (feed lost or regained). */
  onChange: (change: Change | undefined) => void;
  /** How often the connection is checked, and the deadline of each check and of connecting, in ms. */
  heartbeatMs?: number;
  timeoutMs?: number;
}

/** The channel of a schema (public when none is named): a valid identifier of at most 63 bytes. */
export function channelFor(schema: string | null): string {
  return `plant_store_${schema ?? 'public'}`.slice(0, 63);
}

/** What a store's NOTIFY payloads start with: its origin, then `|`. SQL appends `p:<owner>` to it. */
export const notifyPrefix = (origin: string) => `${origin}|`;

export function encodeChange(change: Change, origin: string): string {
  return notifyPrefix(origin) + (change.kind === 'plants' ? `p:${change.owner}` : 't');
}

function decodeChange(payload: string | undefined): Change | undefined {
  const body = payload?.slice(payload.indexOf('|') + 1);
  if (body === 't') return { kind: 'tokens' };
  if (body?.startsWith('p:')) return { kind: 'plants', owner: body.slice(2) };
  return undefined;
}

export class ChangeFeed {
  readonly #options: Required<Omit<ChangeFeedOptions, 'onLost' | 'onLive'>> &
    Pick<ChangeFeedOptions, 'onLost' | 'onLive'>;
  #client: pg.Client | undefined;
  #live = false;
  #closed = false;
  #heartbeat: NodeJS.Timeout | undefined;
  #retry: NodeJS.Timeout | undefined;
  #retryMs = 50;
  /** The last heartbeat sent on the channel, and the last one that came back. */
  #sent = 0;
  #heard = 0;
  #sentAt = 0;
  #heardListener: (() => void) | undefined;
  /** How long the last heartbeat took to come back, in ms. */
  #roundTripMs = 0;

  constructor(options: ChangeFeedOptions) {
    this.#options = { heartbeatMs: 1_000, timeoutMs: 2_000, Client: pg.Client, ...options };
  }

  /** True while every change committed by any instance is being received: caches may answer. */
  get live(): boolean {
    return this.#live;
  }

  /** How late notifications arrive: the last heartbeat's round trip, or the age of one still not back if longer. */
  get lagMs(): number {
    const waiting = this.#heard < this.#sent ? Date.now() - this.#sentAt : 0;
    return Math.max(this.#roundTripMs, waiting);
  }

  /** Connects and listens; resolves once listening or once the first attempt failed (retries go on behind). */
  async start(): Promise<void> {
    await this.#connect();
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#down();
    clearTimeout(this.#retry);
  }

  async #connect(): Promise<void> {
    if (this.#closed) return;
    const { connectionString, channel, timeoutMs, Client } = this.#options;
    const client = new Client({ connectionString, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs });
    this.#client = client;
    client.on('error', (error) => this.#lost(client, error));
    client.on('end', () => this.#lost(client, new Error('the connection ended')));
    const own = notifyPrefix(this.#options.origin);
    client.on('notification', (message) => {
      if (message.channel !== channel) return;
      const payload = message.payload ?? '';
      const heartbeat = /^[^|]*\|h:(\d+)$/.exec(payload);
      if (heartbeat) {
        if (payload.startsWith(own) && this.#client === client) {
          this.#heard = Math.max(this.#heard, Number(heartbeat[1]));
          this.#roundTripMs = Date.now() - this.#sentAt;
          this.#heardListener?.();
        }
        return;
      }
      if (payload.startsWith(own)) return;
      this.#options.onChange(decodeChange(payload));
    });
    this.#sent = this.#heard = 0;
    try {
      await client.connect();
      await client.query(`LISTEN ${quoteIdent(channel)}`);
      // Live only once a notification sent on the channel comes back: LISTEN succeeding proves less than that.
      await this.#beat(client);
      await this.#heardBack(timeoutMs);
    } catch (error) {
      this.#lost(client, error);
      return;
    }
    if (this.#client !== client) return;
    this.#options.onLive?.();
    // Whatever changed while no one listened is unknown: start from empty caches, then trust them.
    this.#options.onChange(undefined);
    this.#live = true;
    this.#retryMs = 50;
    this.#heartbeat = setInterval(() => {
      // The previous heartbeat must come back within the deadline; then the next one goes out.
      if (this.#heard < this.#sent) {
        if (Date.now() - this.#sentAt > timeoutMs) {
          this.#lost(client, new Error(`no heartbeat came back on the channel within ${timeoutMs} ms`));
        }
        return;
      }
      this.#beat(client).catch((error: unknown) => this.#lost(client, error));
    }, this.#options.heartbeatMs);
    this.#heartbeat.unref();
  }

  #beat(client: pg.Client): Promise<unknown> {
    const n = ++this.#sent;
    this.#sentAt = Date.now();
    return client.query('SELECT pg_notify($1, $2)', [
      this.#options.channel,
      `${notifyPrefix(this.#options.origin)}h:${n}`,
    ]);
  }

  #heardBack(timeoutMs: number): Promise<void> {
    if (this.#heard >= this.#sent) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#heardListener = undefined;
        reject(new Error(`no notification came back on the channel within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#heardListener = () => {
        if (this.#heard < this.#sent) return;
        clearTimeout(timer);
        this.#heardListener = undefined;
        resolve();
      };
    });
  }

  #down(): void {
    const wasLive = this.#live;
    this.#live = false;
    clearInterval(this.#heartbeat);
    const client = this.#client;
    this.#client = undefined;
    client?.end().catch(() => {});
    if (wasLive) this.#options.onChange(undefined);
  }

  // A failure of the current connection: stop trusting the caches at once, and reconnect with backoff (50 ms to 2 s).
  #lost(client: pg.Client, error: unknown): void {
    if (this.#client !== client) return;
    this.#down();
    if (!this.#closed) this.#options.onLost?.(error);
    if (this.#closed) return;
    clearTimeout(this.#retry);
    this.#retry = setTimeout(() => void this.#connect(), this.#retryMs);
    this.#retry.unref();
    this.#retryMs = Math.min(this.#retryMs * 2, 2_000);
  }
}
