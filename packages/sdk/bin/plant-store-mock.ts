#!/usr/bin/env node
// plant-store-mock: the Plant Store contract served over HTTP from memory, for frontend teams. The service's own rules
// (src/mock/mock-service.ts, on the testing kit) on a node:http socket: no database, no server package, no framework.
// Ends on SIGTERM and SIGINT.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { BODY_LIMIT_BYTES } from '@plant-store/contract';
import { createMockService, type MockService } from '../src/mock/mock-service.js';

const USAGE = `usage: plant-store-mock [--port 4010] [--host 127.0.0.1] [--seed FILE] [--token TOKEN] [--cors-origin ORIGIN]...

Serves the Plant Store API from memory with the service's own handlers and rules.
  --port N              where to listen (default 4010; 0 picks a free port)
  --host H              the address to listen on (default 127.0.0.1)
  --seed FILE           a JSON array of plants to start with, e.g. [{"id": 1, "name": "Fern", "tag": "indoor"}]
  --token TOKEN         the bearer token to accept (default: a random one, printed at start)
  --cors-origin ORIGIN  an origin granted CORS besides every loopback one (repeatable; * for any)`;

function usageError(message: string): never {
  process.stderr.write(`plant-store-mock: ${message}\n${USAGE}\n`);
  process.exit(2);
}

function options() {
  try {
    const { values } = parseArgs({
      options: {
        port: { type: 'string', default: '4010' },
        host: { type: 'string', default: '127.0.0.1' },
        seed: { type: 'string' },
        token: { type: 'string' },
        'cors-origin': { type: 'string', multiple: true, default: [] },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
    });
    if (values.help) {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    }
    const port = Number(values.port);
    if (!/^\d+$/.test(values.port) || port > 65535) usageError(`--port must be a port number, got ${values.port}`);
    return { ...values, port };
  } catch (error) {
    return usageError((error as Error).message);
  }
}

/** The request's body, at most one byte past the contract's limit (the rest is read and dropped: the answer is 413). */
async function bodyOf(request: IncomingMessage): Promise<Uint8Array<ArrayBuffer> | undefined> {
  const chunks: Buffer[] = [];
  let kept = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    if (kept > BODY_LIMIT_BYTES) continue;
    chunks.push(chunk);
    kept += chunk.length;
  }
  return kept === 0 ? undefined : Uint8Array.from(Buffer.concat(chunks).subarray(0, BODY_LIMIT_BYTES + 1));
}

async function answer(service: MockService, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const headers = new Headers();
  for (let index = 0; index < request.rawHeaders.length; index += 2) {
    headers.append(request.rawHeaders[index]!, request.rawHeaders[index + 1]!);
  }
  const method = request.method ?? 'GET';
  const body = await bodyOf(request);
  let outgoing: Request;
  try {
    const url = new URL(request.url ?? '/', `http://${request.headers.host ?? 'localhost'}`);
    outgoing = new Request(url, {
      method,
      headers,
      ...(body && method !== 'GET' && method !== 'HEAD' ? { body } : {}),
    });
  } catch (error) {
    response.writeHead(400, { 'content-type': 'application/json; charset=utf-8' });
    response.end(
      JSON.stringify({ error: 400, message: `the mock cannot read this request: ${(error as Error).message}` }),
    );
    return;
  }
  const answered = await service.fetch(outgoing);
  response.writeHead(answered.status, Object.fromEntries(answered.headers));
  response.end(answered.body === null ? undefined : Buffer.from(await answered.arrayBuffer()));
}

const values = options();
let service: MockService;
try {
  service = createMockService({
    ...(values.token === undefined ? {} : { token: values.token }),
    ...(values.seed === undefined ? {} : { seed: readFileSync(values.seed, 'utf8') }),
    corsOrigins: values['cors-origin'],
  });
} catch (error) {
  usageError((error as Error).message);
}

const server = createServer((request, response) => {
  answer(service, request, response).catch((error: unknown) => {
    process.stderr.write(`plant-store-mock: ${(error as Error).stack ?? error}\n`);
    if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
    response.end(JSON.stringify({ error: 500, message: 'the mock server failed; see its output' }));
  });
});
server.on('error', (error: NodeJS.ErrnoException) => {
  process.stderr.write(`plant-store-mock: cannot listen on ${values.host}:${values.port}: ${error.message}\n`);
  process.exit(1);
});
server.listen(values.port, values.host, () => {
  const { address, family, port } = server.address() as AddressInfo;
  const host = family === 'IPv6' ? `[${address}]` : address;
  process.stdout.write(`plant-store-mock: listening on http://${host}:${port}\n`);
  process.stdout.write(`plant-store-mock: token ${service.token}\n`);
});

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
}
