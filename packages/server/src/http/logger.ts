// The service log: JSON lines at the configured level, each with the request id; off when the level is `silent`.
// A request is one line at `info` ("request completed": method, redacted URL, address, status, time), written when
// its answer is done, as an access log is; `debug` adds an "incoming request" line when it arrives. Two lines per
// request cost the hot read about as much CPU as all the rest of its hooks (docs/benchmarks.md, layer table).
import { type FastifyReply, type FastifyRequest, type FastifyServerOptions, LogController } from 'fastify';
import { destination } from 'pino';
import type { LogLevel } from '../config.js';
import { redactQuery } from './url-redaction.js';

export function loggerOptions(level: LogLevel): FastifyServerOptions['logger'] {
  if (level === 'silent') return false;
  return {
    level,
    // Lines go to standard output without waiting for each write: while one write is under way the next lines are
    // gathered and written together, so a busy service makes one write call for many lines. What is still
    // unwritten is written synchronously when the process exits.
    stream: destination({ dest: 1, sync: false }),
    serializers: {
      // A token sent in the query string is refused, and must not reach the log either.
      req: (request: FastifyRequest) => ({
        method: request.method,
        url: redactQuery(request.url),
        remoteAddress: request.ip,
      }),
    },
  };
}

/** One line per request, when it is answered; "incoming request" only at `debug`. */
export class AccessLog extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    if (this.isLogDisabled(request)) return;
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    const line = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}
