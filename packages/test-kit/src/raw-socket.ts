// Test support: raw HTTP/1.1 over a loopback socket, for what fetch hides (pipelining, half-sent bodies, bad bytes).
import { connect, type Socket } from 'node:net';

export interface RawConnection {
  socket: Socket;
  /** Everything received so far. */
  received(): string;
  /** Resolves once the server has closed the connection (or after `timeoutMs`), with what was received. */
  closed(timeoutMs?: number): Promise<{ text: string; closed: boolean }>;
  /** Resolves once `pattern` appears in what was received (or rejects after `timeoutMs`). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
}

export async function openRaw(url: string): Promise<RawConnection> {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  let text = '';
  let isClosed = false;
  socket.on('data', (chunk) => {
    text += chunk.toString('latin1');
  });
  socket.on('error', () => {});
  const closedPromise = new Promise<void>((resolve) =>
    socket.once('close', () => {
      isClosed = true;
      resolve();
    }),
  );
  return {
    socket,
    received: () => text,
    async closed(timeoutMs = 5_000) {
      await Promise.race([closedPromise, new Promise((resolve) => setTimeout(resolve, timeoutMs))]);
      return { text, closed: isClosed };
    },
    waitFor(pattern, timeoutMs = 5_000) {
      return new Promise((resolve, reject) => {
        const started = Date.now();
        const poll = setInterval(() => {
          if (pattern.test(text)) {
            clearInterval(poll);
            resolve(text);
          } else if (Date.now() - started > timeoutMs) {
            clearInterval(poll);
            reject(new Error(`timed out waiting for ${pattern}; received ${JSON.stringify(text)}`));
          }
        }, 10);
      });
    },
  };
}

/** Splits raw HTTP/1.1 answers (Content-Length framed) into status, headers and body. */
export function parseAnswers(text: string): { status: number; headers: Record<string, string>; body: string }[] {
  const answers: { status: number; headers: Record<string, string>; body: string }[] = [];
  let rest = text;
  while (rest.startsWith('HTTP/1.1 ')) {
    const end = rest.indexOf('\r\n\r\n');
    if (end === -1) break;
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    answers.push({ status: Number(statusLine!.split(' ')[1]), headers, body: rest.slice(end + 4, end + 4 + length) });
    rest = rest.slice(end + 4 + length);
  }
  return answers;
}
