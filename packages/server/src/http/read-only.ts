// Read-only mode (READ_ONLY=true), for a maintenance window such as the move to PostgreSQL: every create and delete
// is answered 503 with Retry-After in the Error shape before its body is read, so clients (the SDK's retries) wait
// the window out; lists, conditional GETs and webhook deliveries go on.
import type { FastifyInstance } from 'fastify';
import { errorBodyText } from './error-handler.js';

/** Seconds a refused write is told to wait. */
export const READ_ONLY_RETRY_AFTER_S = 5;

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function registerReadOnly(app: FastifyInstance, readOnly: boolean): void {
  if (!readOnly) return;
  const body = errorBodyText(503, 'the service is read-only for maintenance (READ_ONLY=true); retry shortly');
  app.addHook('onRequest', (request, reply, done) => {
    if (READS.has(request.method)) return done();
    reply
      .code(503)
      .header('retry-after', String(READ_ONLY_RETRY_AFTER_S))
      .type('application/json; charset=utf-8')
      .send(body);
  });
}
