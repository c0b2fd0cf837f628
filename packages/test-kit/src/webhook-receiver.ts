// Test support: a real HTTP receiver on loopback that records every webhook request and answers as the test says
// (a status and headers, or never).
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
  /** When it arrived (Date.now()). */
  at: number;
  path: string;
}

export type Reply = { status: number; headers?: Record<string, string> } | 'hang';

export interface WebhookReceiver {
  /** http://127.0.0.1:PORT/hook */
  url: string;
  received: ReceivedWebhook[];
  /** Connections open to the receiver now: 0 once every request sent to it has been read. */
  connections(): Promise<number>;
  /** Changes how later requests are answered. */
  answer(reply: (request: ReceivedWebhook, index: number) => Reply): void;
  close(): Promise<void>;
}

export async function startWebhookReceiver(
  reply: (request: ReceivedWebhook, index: number) => Reply = () => ({ status: 200 }),
): Promise<WebhookReceiver> {
  let answer = reply;
  const received: ReceivedWebhook[] = [];
  const hanging = new Set<ServerResponse>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const webhook = {
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
        path: request.url ?? '',
      };
      const index = received.push(webhook) - 1;
      const decision = answer(webhook, index);
      if (decision === 'hang') {
        hanging.add(response);
        return;
      }
      response.writeHead(decision.status, decision.headers).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    connections: () =>
      new Promise<number>((resolve, reject) =>
        server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
      ),
    answer(next) {
      answer = next;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
