// Test support: a loopback TCP proxy to the machine's PostgreSQL that plays a standby while `readOnly` is set: it adds
// `-c default_transaction_read_only=on` to the startup message of each session it opens, so every transaction there
// is read-only (writes fail with 25006, as on a standby). Two of them play a primary and its standby to a multi-host
// URL; flipping them and dropping their connections plays a failover, with no second server.
import { connect, createServer, type Socket } from 'node:net';
import { POSTGRES_URL } from './test-database.js';

export interface ReadOnlyProxy {
  readonly port: number;
  /** `host:port` of the proxy, for a multi-host URL. */
  readonly address: string;
  /** Whether sessions opened from now on are read-only. */
  readOnly: boolean;
  /** Sessions opened through it so far. */
  readonly sessions: number;
  /** POSTGRES_URL through the proxy, with the query string given. */
  url(query?: string): string;
  /** Closes every connection through it (a server going down), leaving it listening. */
  dropConnections(): void;
  close(): Promise<void>;
}

const PROTOCOL_3 = 196_608;
const READ_ONLY = '-c default_transaction_read_only=on';

/** The startup message with `options` carrying READ_ONLY; other first messages (a cancel request) pass as they are. */
function readOnlyStartup(message: Buffer): Buffer {
  if (message.readInt32BE(4) !== PROTOCOL_3) return message;
  const fields = message
    .subarray(8, message.length - 1)
    .toString('utf8')
    .split('\0');
  const pairs: [string, string][] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) pairs.push([fields[i]!, fields[i + 1]!]);
  const options = pairs.find(([name]) => name === 'options');
  if (options) options[1] = `${options[1]} ${READ_ONLY}`;
  else pairs.push(['options', READ_ONLY]);
  const body = Buffer.from(`${pairs.map(([name, value]) => `${name}\0${value}\0`).join('')}\0`, 'utf8');
  const head = Buffer.alloc(8);
  head.writeInt32BE(8 + body.length, 0);
  head.writeInt32BE(PROTOCOL_3, 4);
  return Buffer.concat([head, body]);
}

export async function startReadOnlyProxy(readOnly = false): Promise<ReadOnlyProxy> {
  const target = new URL(POSTGRES_URL);
  const sockets = new Set<Socket>();
  let sessions = 0;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server = createServer((client) => {
    track(client);
    sessions++;
    const upstream = connect(Number(target.port || 5432), target.hostname);
    track(upstream);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    const asReadOnly = proxy.readOnly;
    let first = Buffer.alloc(0);
    const onFirst = (chunk: Buffer) => {
      first = Buffer.concat([first, chunk]);
      if (first.length < 8 || first.length < first.readInt32BE(0)) return;
      client.off('data', onFirst);
      const length = first.readInt32BE(0);
      const message = first.subarray(0, length);
      upstream.write(asReadOnly ? readOnlyStartup(message) : message);
      upstream.write(first.subarray(length));
      client.pipe(upstream);
      upstream.pipe(client);
    };
    client.on('data', onFirst);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const proxy: ReadOnlyProxy = {
    port,
    address: `127.0.0.1:${port}`,
    readOnly,
    get sessions() {
      return sessions;
    },
    url: (query) =>
      `postgres://${target.username || 'postgres'}@127.0.0.1:${port}${target.pathname}${query ? `?${query}` : ''}`,
    dropConnections() {
      for (const socket of sockets) socket.destroy();
    },
    async close() {
      proxy.dropConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return proxy;
}
