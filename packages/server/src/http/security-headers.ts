// Security headers from @fastify/helmet on every answer (nosniff, frame and referrer policies, ...), plus
// Cache-Control: no-store on API answers, which carry one caller's data.
// Helmet's Content-Security-Policy is off: the API answers JSON, which no browser renders, and /docs sets its own
// policy (swagger-ui's staticCSP), which a global one would contradict.
import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';

export async function registerSecurityHeaders(app: FastifyInstance): Promise<void> {
  await app.register(helmet, { global: true, contentSecurityPolicy: false });
  app.addHook('onRequest', async (request, reply) => {
    if (!request.url.startsWith('/docs')) reply.header('cache-control', 'no-store');
  });
}
