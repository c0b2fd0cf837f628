// Test support: a loopback TCP proxy in front of the machine's PostgreSQL that can cut the change feed alone. While
// `blockListen` is on, any connection whose client sends a LISTEN is destroyed (at once, and on every reconnect),
// while ordinary query connections pass untouched: the database stays up, the feed stays down.
import { connect, createServer, type Server, type Socket } from 'node:net';
import { POSTGRES_URL } from '@plant-store/test-kit';

export interface ListenBlockingProxy {
  /** POSTGRES_URL through the proxy, with `?schema=` for the given schema. */
  url(schema: string): string;
  /** Destroys the connections that LISTENed, and any that LISTEN from now on, until set back to false. */
  blockListen(on: boolean): void;
  /**
   * Silently drops the notifications PostgreSQL sends to connections that LISTENed, until set back to false: the
   * connection and its queries stay healthy, only notifications go missing (as with a misspelt channel).
   */
  dropNotifications(on: boolean): void;
  /** Counts, from now on, the chunks clients send that contain `text` (a statement's text); read it by calling. */
  countSent(text: string): () => number;
  close(): Promise<void>;
}

export async function startListenBlockingProxy(): Promise<ListenBlockingProxy> {
  const target = new URL(POSTGRES_URL);
  const listeners = new Set<Socket>();
  const all = new Set<Socket>();
  let blocked = false;
  let dropping = false;
  const counters: { text: string; count: number }[] = [];
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    const pair = [client, upstream];
    for (const socket of pair) {
      all.add(socket);
      socket.on('close', () => {
        all.delete(socket);
        listeners.delete(client);
        for (const other of pair) other.destroy();
      });
      socket.on('error', () => {});
    }
    client.on('data', (chunk: Buffer) => {
      for (const counter of counters) if (chunk.includes(counter.text)) counter.count++;
      if (chunk.includes('LISTEN ')) {
        listeners.add(client);
        if (blocked) {
          for (const socket of pair) socket.destroy();
          return;
        }
      }
      upstream.write(chunk);
    });
    // Server messages are a type byte and a 4-byte length (which counts itself); 'A' is a notification.
    let pending = Buffer.alloc(0);
    upstream.on('data', (chunk: Buffer) => {
      // Framing is followed from the LISTEN on (the server is between messages then), so switching drops on and
      // off never cuts a message.
      if (!listeners.has(client)) {
        client.write(chunk);
        return;
      }
      let buffer = Buffer.concat([pending, chunk]);
      const kept: Buffer[] = [];
      while (buffer.length >= 5) {
        const size = 1 + buffer.readUInt32BE(1);
        if (buffer.length < size) break;
        if (!dropping || buffer[0] !== 0x41) kept.push(buffer.subarray(0, size));
        buffer = buffer.subarray(size);
      }
      pending = Buffer.from(buffer);
      if (kept.length > 0) client.write(Buffer.concat(kept));
    });
    upstream.on('end', () => client.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: (schema) => `postgres://${target.username}@127.0.0.1:${port}${target.pathname}?schema=${schema}`,
    blockListen(on) {
      blocked = on;
      if (on) for (const socket of listeners) socket.destroy();
    },
    dropNotifications(on) {
      dropping = on;
    },
    countSent(text) {
      const counter = { text, count: 0 };
      counters.push(counter);
      return () => counter.count;
    },
    async close() {
      for (const socket of all) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
