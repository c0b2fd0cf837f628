// CORS for browser callers on the origins CORS_ORIGINS names; off when it names none. The methods allowed are the
// contract's own.
import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

export async function registerCors(
  app: FastifyInstance,
  origins: readonly string[],
  methods: readonly string[],
): Promise<void> {
  if (origins.length === 0) return;
  await app.register(cors, {
    origin: origins.includes('*') ? '*' : [...origins],
    methods: [...new Set(methods)],
    // traceparent and tracestate: browser apps forward their W3C trace context (the SDK's traceContextMiddleware).
    // Idempotency-Key and If-None-Match: the SDK's safe retries and conditional lists (ETag, Idempotent-Replayed).
    allowedHeaders: [
      'Authorization',
      'Content-Type',
      'X-Request-Id',
      'traceparent',
      'tracestate',
      'Idempotency-Key',
      'If-None-Match',
    ],
    exposedHeaders: ['Link', 'Retry-After', 'X-Request-Id', 'WWW-Authenticate', 'ETag', 'Idempotent-Replayed'],
    maxAge: 600,
  });
}
