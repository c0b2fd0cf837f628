// The Node HTTP server under Fastify, with the timeouts that cut slow clients off, and `Expect: 100-continue` left
// to the app (expect-continue.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../config.js';
import { processConnectionBound } from './connection-bound.js';
import { type ShedLog, shareConnections } from './connection-shares.js';
import { http } from './node-http.js';

type Timeouts = Pick<Config, 'requestTimeoutMs' | 'keepAliveTimeoutMs' | 'trustProxy'>;

/** Fastify's serverFactory: a plain node:http server with the configured timeouts; `log` hears what is shed. */
export function httpServerFactory(config: Timeouts, log: ShedLog) {
  const maxConnections = processConnectionBound();
  return (handler: (request: IncomingMessage, response: ServerResponse) => void) => {
    const server = http
      .createServer(
        {
          requestTimeout: config.requestTimeoutMs,
          headersTimeout: Math.min(config.requestTimeoutMs, 60_000),
          keepAliveTimeout: config.keepAliveTimeoutMs,
          // Check timeouts every second rather than Node's default 30 s, so slow clients are cut off on time.
          connectionsCheckingInterval: 1_000,
        },
        handler,
        // With a listener here Node no longer answers `Expect: 100-continue` by itself: see expect-continue.ts.
      )
      .on('checkContinue', handler);
    // Below the descriptor limit (connection-bound.ts), shared between addresses (connection-shares.ts).
    if (maxConnections !== undefined) shareConnections(server, maxConnections, config.trustProxy === false, log);
    return server;
  };
}
