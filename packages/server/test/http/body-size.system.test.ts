// An oversized body is refused with the contract's 413 as soon as Content-Length announces it (or once the bytes
// read pass the limit), and the client gets to read that 413: the connection lingers, reading and discarding what
// the client is still sending (nginx's lingering_close), rather than closing under it, which resets the connection
// and fails the client's upload with EPIPE or ECONNRESET, often before it has read the answer.
import { connect, type Socket } from 'node:net';
import { startTestServer, type TestServer } from '@plant-store/test-kit';
import { parseAnswers } from '@plant-store/test-kit/raw-socket';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let server: TestServer;
let token: string;

beforeAll(async () => {
  server = await startTestServer();
  token = await server.token('oversized');
});
afterAll(async () => {
  await server?.close();
});

const MiB = 1024 * 1024;
const ANSWERED = /\r\n\r\n\{.*\}/s;

/** A client that keeps uploading after the server has answered and shut its side (TCP half-close), as curl does. */
async function uploadingClient(): Promise<{ socket: Socket; received: () => string; errors: string[] }> {
  const { hostname, port } = new URL(server.url);
  const socket = connect({ host: hostname, port: Number(port), allowHalfOpen: true });
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let text = '';
  const errors: string[] = [];
  socket.on('data', (chunk) => {
    text += chunk.toString('latin1');
  });
  socket.on('error', (error: NodeJS.ErrnoException) => errors.push(error.code ?? error.message));
  return { socket, received: () => text, errors };
}

/** Writes `piece` and waits for the socket to take it (drain), at most `timeoutMs`; false when it did not. */
function write(socket: Socket, piece: Buffer, timeoutMs = 2_000): Promise<boolean> {
  return new Promise((resolve) => {
    if (socket.write(piece)) return resolve(true);
    const timer = setTimeout(() => resolve(false), timeoutMs);
    socket.once('drain', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

describe('an oversized body', () => {
  it.each([
    ['announced by Content-Length', `Content-Length: ${16 * MiB}`],
    ['sent chunked', 'Transfer-Encoding: chunked'],
  ])('is answered 413 while the client keeps sending, never reset under it (%s)', async (_name, framing) => {
    const client = await uploadingClient();
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const piece = framing.startsWith('Transfer')
      ? Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')])
      : chunk;
    client.socket.write(
      `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\n${framing}\r\n\r\n`,
    );
    let sent = 0;
    while (!ANSWERED.test(client.received()) && sent < 8 * MiB && client.errors.length === 0) {
      await write(client.socket, piece);
      sent += chunk.length;
    }
    expect(client.received()).toMatch(ANSWERED);
    // The client goes on with its upload (another 4 MiB) before it reads; the server reads and discards it.
    let drained = true;
    for (let more = 0; more < 4 * MiB && drained && client.errors.length === 0; more += chunk.length) {
      drained = await write(client.socket, piece);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(client.errors).toEqual([]);
    expect(drained).toBe(true);
    const [answer, ...rest] = parseAnswers(client.received());
    expect(answer?.status).toBe(413);
    expect(JSON.parse(answer!.body)).toEqual({ error: 413, message: 'the request body is larger than 16384 bytes' });
    expect(answer?.headers.connection).toBe('close');
    expect(rest).toEqual([]);
    // Once the client has sent what it meant to and closes its side, the server closes at once.
    const closed = new Promise((resolve) => client.socket.once('close', resolve));
    client.socket.end();
    await expect(
      Promise.race([closed.then(() => 'closed'), new Promise((r) => setTimeout(() => r('open'), 2_000))]),
    ).resolves.toBe('closed');
  });
});
