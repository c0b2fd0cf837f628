// A JSON answer leaves in one write: status line, headers and body together. A page cached as bytes used to go out as
// a second chunk (a writev of header and body), which cost the hot read more than decoding the page does
// (http/bindings.ts, docs/benchmarks.md). The bytes are the same either way; this pins the single write.
import type { AddressInfo, Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { issueToken } from '../../../src/auth/tokens.js';
import { loadConfig } from '../../../src/config.js';
import { openStore } from '../../../src/store/open-store.js';
import type { Store } from '../../../src/store/store.js';

const opened: { app: FastifyInstance; store: Store }[] = [];
afterEach(async () => {
  for (const { app, store } of opened.splice(0)) {
    await app.close();
    await store.close();
  }
});

describe('a JSON answer on the wire', () => {
  it('goes out in one write, headers and body together, with the page unchanged', async () => {
    const config = loadConfig({ DATABASE_URL: 'memory:', LOG_LEVEL: 'silent', METRICS_PORT: 'off' });
    const store = await openStore(config.databaseUrl);
    await store.migrate();
    const app = await buildApp({ config, store, webhookWorker: false });
    opened.push({ app, store });
    const { token } = await issueToken(store.tokens, { subject: 'one-write' });
    const writes: string[] = [];
    type Write = (this: Socket, ...args: unknown[]) => void;
    app.server.on('connection', (socket: Socket & { _write: Write; _writev: Write }) => {
      const [write, writev] = [socket._write, socket._writev];
      socket._write = function (...args: unknown[]) {
        writes.push('write');
        return write.apply(this, args);
      };
      socket._writev = function (...args: unknown[]) {
        writes.push('writev');
        return writev.apply(this, args);
      };
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const headers = { authorization: `Bearer ${token}` };
    for (const id of [1, 2, 3]) {
      const created = await fetch(`${url}/plants`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ id, name: `plant ${id} \u00e9\u6728`, tag: 't' }),
      });
      expect(created.status).toBe(200);
    }
    // Twice: the second answer is the cached page's.
    for (const round of [1, 2]) {
      writes.length = 0;
      const answer = await fetch(`${url}/plants?limit=2`, { headers });
      const body = Buffer.from(await answer.arrayBuffer());
      expect(answer.status, `round ${round}`).toBe(200);
      expect(body.toString('utf8')).toBe(
        '[{"name":"plant 1 \u00e9\u6728","tag":"t"},{"name":"plant 2 \u00e9\u6728","tag":"t"}]',
      );
      expect(Number(answer.headers.get('content-length'))).toBe(body.length);
      expect(answer.headers.get('link')).not.toBeNull();
      expect(writes, `round ${round}`).toEqual(['write']);
    }
  });
});
