// Routes for operators and readers rather than API clients: liveness, readiness, the contract and its docs page.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { type Store, StoreUnavailableError } from '../store/store.js';
import { sendError } from './error-handler.js';
import type { Contract } from './openapi-document.js';
import type { RateLimitBackend } from './rate-limit-store.js';

/** sha256 of `.logo_small_svg__cls-2{fill:#fff}.logo_small_svg__cls-3{fill:#85ea2d}`, @fastify/swagger-ui 6.1.3. */
const LOGO_STYLE = 'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w=';

export async function registerOperationalRoutes(
  app: FastifyInstance,
  contract: Contract,
  store: Store,
  rateLimits: RateLimitBackend | null = null,
  readOnly = false,
) {
  app.get('/healthz', { logLevel: 'warn' }, async () => ({ status: 'ok' }));
  app.get('/readyz', { logLevel: 'warn' }, async (request, reply) => {
    try {
      await store.ping();
      // Ready to serve reads: a load balancer keeps sending traffic, and an operator sees why writes are refused.
      if (readOnly) return { status: 'read-only', database: store.kind, writes: 'refused: READ_ONLY=true' };
      // Redis away is degraded, not unready: each process then limits on its own.
      if (rateLimits?.state() === 'local') {
        return { status: 'degraded', database: store.kind, rateLimits: 'per-process: redis is unreachable' };
      }
      return { status: 'ok', database: store.kind };
    } catch (error) {
      request.log.warn({ err: error }, 'readiness check failed');
      // The store's own word when it has one: "only a standby ... is reachable" through a failover, say.
      const why = error instanceof StoreUnavailableError ? `: ${error.message}` : '';
      return sendError(reply, 503, `the ${store.kind} database is not ready${why}`);
    }
  });
  app.get('/openapi.json', async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send(contract.json),
  );
  app.get('/openapi.yaml', async (_request, reply) =>
    reply.type('application/yaml; charset=utf-8').send(contract.yaml),
  );
  // Static mode: the page documents openapi.yaml itself; every asset is served from this process, no CDN.
  await app.register(swagger, { mode: 'static', specification: { document: contract.document as never } });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { deepLinking: true, displayOperationId: true },
    staticCSP: true,
    // The one inline style the page has is the <style> in Swagger UI's logo (its topbar's SVG): allowed by its hash,
    // not by 'unsafe-inline', so the console stays clean and script-src stays 'self' alone. A Swagger UI whose logo
    // changes fails the /docs browser test (a console error) until this hash follows.
    transformStaticCSP: (header) =>
      header.replace("style-src 'self' https:", `style-src 'self' https: '${LOGO_STYLE}'`),
    // "Try it out" calls the origin and path this page was served from, not the contract's example server: the page
    // fetches its document from <page>/json, and a relative server URL resolves against that, so `..` is the
    // service's root here, behind a proxy's path prefix, on any host and port, and within the page's CSP ('self').
    transformSpecification: (document) => ({
      ...document,
      servers: [{ url: '..', description: 'This service (where this page was served from)' }],
    }),
    uiHooks: {
      // @fastify/swagger-ui 6.1.3 redirects /docs/static/index.html to itself when a query string follows (its regex
      // is anchored at the end of the URL): send such requests to the page itself, without the query.
      onRequest: async (request, reply) => {
        if ((request.url.split('?')[0] ?? '').endsWith('/static/index.html')) return reply.redirect('/docs/');
      },
    },
  });
}
