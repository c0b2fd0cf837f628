// Test support: an upstream that answers with whatever bytes a test writes, for the validating proxy to catch: wrong
// shapes, text errors, a HEAD with a body, a flood, silence. One request per connection; the request body is read
// (by Content-Length) before the answer is written, and `requests` keeps what arrived, byte for byte.

import type { AddressInfo } from 'node:net';
import { createServer, type Socket } from 'node:net';

export interface RawRequest {
  method: string;
  target: string;
  head: string;
  body: Buffer;
}

/** The raw answer to write (status line, headers, body), or 'silent' to answer nothing until the socket closes. */
export type RawAnswer = (request: RawRequest, socket: Socket) => string | Buffer | 'silent';

export interface RawUpstream {
  url: string;
  requests: RawRequest[];
  close(): Promise<void>;
}

/** An answer of `status` with `body` and `headers` (Content-Length set, the connection closed after it). */
export function rawAnswer(status: number, body: string | Buffer, headers: Record<string, string> = {}): Buffer {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  const lines = [`HTTP/1.1 ${status} X`, `content-length: ${bytes.length}`, 'connection: close'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), bytes]);
}

export async function startRawUpstream(answer: RawAnswer): Promise<RawUpstream> {
  const requests: RawRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let received = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const end = received.indexOf('\r\n\r\n');
      if (end === -1) return;
      const head = received.subarray(0, end).toString('latin1');
      const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
      if (received.length < end + 4 + length) return;
      socket.off('data', onData);
      const [method = '', target = ''] = head.split(' ');
      const request = { method, target, head, body: received.subarray(end + 4, end + 4 + length) };
      requests.push(request);
      const written = answer(request, socket);
      if (written !== 'silent') socket.end(written);
    };
    socket.on('data', onData);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
