// CORS for browser callers on the origins CORS_ORIGINS names; off when it names none. The methods allowed are the
// contract's own.
import cors from '@fastify/cors';
import { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS, CORS_MAX_AGE_SECONDS } from '@plant-store/contract';
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
    // The contract's lists, which the SDK's mock server sends too.
    allowedHeaders: [...CORS_ALLOWED_HEADERS],
    exposedHeaders: [...CORS_EXPOSED_HEADERS],
    maxAge: CORS_MAX_AGE_SECONDS,
  });
}
