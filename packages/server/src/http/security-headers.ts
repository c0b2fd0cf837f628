// The headers every answer carries, set by one synchronous onRequest hook: the request id, @fastify/helmet's security
// headers and, on API answers, which carry one caller's data, Cache-Control: no-store. Helmet's headers do not depend
// on the request, so they are computed once at start-up (one request to a throwaway app with the plugin) rather than by
// helmet's middleware on every request. /docs, an HTML page, gets all of them; an API answer, JSON that no browser
// renders as a page, gets those that still mean something for it (API_HEADERS): each header is work on every answer.
// Helmet's Content-Security-Policy is off: the API answers JSON, which no browser renders, and /docs sets its own
// policy (swagger-ui's staticCSP), which a global one would contradict.
import helmet from '@fastify/helmet';
import Fastify, { type FastifyInstance } from 'fastify';

/** Helmet's headers as it sets them, with the options the service uses. */
async function helmetHeaders(): Promise<Record<string, string>> {
  const probe = Fastify({ logger: false });
  await probe.register(helmet, { global: true, contentSecurityPolicy: false });
  probe.get('/', async () => '');
  const answer = await probe.inject({ method: 'GET', url: '/' });
  await probe.close();
  const generic = new Set(['content-type', 'content-length', 'date', 'connection', 'keep-alive']);
  return Object.fromEntries(
    Object.entries(answer.headers)
      .filter(([name]) => !generic.has(name))
      .map(([name, value]) => [name, String(value)]),
  );
}

/**
 * Helmet's headers an API answer keeps (OWASP's REST security headers): the others (cross-origin-opener-policy,
 * origin-agent-cluster, x-dns-prefetch-control, x-download-options, x-permitted-cross-domain-policies,
 * x-xss-protection) govern a document in a browser window, which a JSON answer never is.
 */
export const API_HEADERS: readonly string[] = [
  'cross-origin-resource-policy',
  'referrer-policy',
  'strict-transport-security',
  'x-content-type-options',
  'x-frame-options',
];

/**
 * Registers the hook. `securityHeaders: false` leaves out helmet's headers and Cache-Control, `requestIds: false` the
 * X-Request-Id header (buildApp's `answerHeaders`).
 */
export async function registerAnswerHeaders(
  app: FastifyInstance,
  { securityHeaders = true, requestIds = true } = {},
): Promise<void> {
  const docs = securityHeaders ? await helmetHeaders() : {};
  const api: Record<string, string> = securityHeaders ? { 'cache-control': 'no-store' } : {};
  for (const name of API_HEADERS) if (docs[name] !== undefined) api[name] = docs[name];
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(request.url.startsWith('/docs') ? docs : api);
    if (requestIds) reply.header('x-request-id', request.id);
    done();
  });
}
