// The service log: JSON lines at the configured level, each with the request id; off when the level is `silent`.
import type { FastifyRequest, FastifyServerOptions } from 'fastify';
import type { LogLevel } from '../config.js';
import { redactQuery } from './url-redaction.js';

export function loggerOptions(level: LogLevel): FastifyServerOptions['logger'] {
  if (level === 'silent') return false;
  return {
    level,
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
