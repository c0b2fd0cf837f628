// Requests written byte for byte on a connection of their own, for what fetch refuses to send: control bytes, raw
// non-ASCII bytes and huge values in headers, a body without Content-Type. A header value is a string of bytes (each
// character one byte, U+0000 to U+00FF; an empty value leaves the header out). One request per connection
// (Connection: close, and the server closes it: a half-close after the request reads as an abort to many servers); the
// answer is read within the client's timeout and up to MAX_ANSWER_BYTES.
import { isIP, connect as openTcp, type Socket } from 'node:net';
import { connect as openTls } from 'node:tls';
import {
  type Exchange,
  type HttpClient,
  MAX_ANSWER_BYTES,
  type OutgoingRequest,
  TransportError,
} from './http-client.js';

/** The bytes `url` answered to `bytes`, until the server closed the connection. */
function exchangeBytes(url: URL, bytes: Buffer, timeoutMs: number, what: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    const socket: Socket =
      url.protocol === 'https:'
        ? openTls({ host, port, ...(isIP(host) ? {} : { servername: host }) }, () => socket.write(bytes))
        : openTcp({ host, port }, () => socket.write(bytes));
    const chunks: Buffer[] = [];
    let length = 0;
    let settled = false;
    const settle = (error?: TransportError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(Buffer.concat(chunks));
    };
    const timer = setTimeout(
      () => settle(new TransportError(`${what}: no answer within ${timeoutMs / 1000} s`)),
      timeoutMs,
    );
    socket.on('data', (chunk: Buffer) => {
      length += chunk.length;
      if (length > MAX_ANSWER_BYTES) {
        settle(new TransportError(`${what}: the answer is larger than ${MAX_ANSWER_BYTES / 1024 / 1024} MiB`));
      } else chunks.push(chunk);
    });
    // A server may reset the connection right after its answer: what came before the reset is the answer.
    socket.on('error', (error: NodeJS.ErrnoException) =>
      chunks.length > 0 ? settle() : settle(new TransportError(`${what}: no answer (${error.code ?? error.message})`)),
    );
    socket.on('close', () => settle());
  });
}

/** A chunked body, decoded. */
function unchunk(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const end = body.indexOf('\r\n', at);
    const size = end < 0 ? Number.NaN : Number.parseInt(body.subarray(at, end).toString('latin1'), 16);
    if (!(size > 0)) return Buffer.concat(parts);
    parts.push(body.subarray(end + 2, end + 2 + size));
    at = end + 2 + size + 2;
  }
}

/** Sends `request` as raw bytes (see the module comment); throws TransportError when no whole answer comes. */
export async function sendRaw(client: HttpClient, request: OutgoingRequest): Promise<Exchange> {
  const url = client.url(request.target);
  const parsed = new URL(url);
  const what = `${request.method} ${url}`;
  const lines = [
    `${request.method} ${parsed.pathname}${parsed.search} HTTP/1.1`,
    `host: ${parsed.host}`,
    'connection: close',
    'accept: application/json',
  ];
  const authorization = client.authorizationOf(request);
  if (authorization !== undefined) lines.push(`authorization: ${authorization}`);
  for (const [name, value] of Object.entries(request.headers ?? {})) if (value !== '') lines.push(`${name}: ${value}`);
  const body = Buffer.from(request.body ?? '', 'utf8');
  if (request.body !== undefined) lines.push(`content-length: ${body.length}`);
  const started = performance.now();
  const raw = await exchangeBytes(
    parsed,
    Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), body]),
    client.timeoutMs,
    what,
  );
  const end = raw.indexOf('\r\n\r\n');
  const [statusLine = '', ...headerLines] = raw.subarray(0, Math.max(end, 0)).toString('latin1').split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1];
  if (end < 0 || status === undefined) {
    throw new TransportError(`${what}: the connection closed without a whole HTTP answer (${raw.length} bytes)`);
  }
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  let content = raw.subarray(end + 4);
  if (/\bchunked\b/i.test(headers['transfer-encoding'] ?? '')) content = unchunk(content);
  else if (headers['content-length'] !== undefined) content = content.subarray(0, Number(headers['content-length']));
  return {
    request,
    url,
    status: Number(status),
    headers,
    text: content.toString('utf8'),
    ms: performance.now() - started,
  };
}
