// Request ids: a caller's sane x-request-id is kept, anything else replaced by a UUID; every answer carries it, so a
// 5xx answer's id finds the details in the log (the header is set with the others, in security-headers.ts).
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Fastify's genReqId: the caller's id when it is sane, else a fresh UUID. */
export function requestId(request: IncomingMessage): string {
  const incoming = request.headers['x-request-id'];
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
}
