// The headers every answer carries, set by one synchronous onRequest hook: the request id, @fastify/helmet's security
// headers and, on API answers, which carry one caller's data, Cache-Control: no-store. Helmet's headers do not depend
// on the request, so they are computed once at start-up (one request to a throwaway app with the plugin) rather than by
// helmet's middleware on every request. /docs, an HTML page, gets all of them; an API answer, JSON that no browser
// renders as a page, gets those that still mean something for it (API_HEADERS): each header is work on every answer.
// Helmet's Content-Security-Policy is off: the API answers JSON, which no browser renders, and /docs sets its own
// policy (swagger-ui's staticCSP), which a global one would contradict.
//
// The hook copies its headers into the object Fastify writes the answer's headers from (Reply's kReplyHeaders, whose
// keys are in lower case, as these are) in one Object.assign, where reply.headers() stores them one key at a time
// through V8's generic keyed store: timed alone for an answer's headers, 0.4 us against 0.9-1.6 us
// (docs/performance.md). The symbol is Fastify's internal: start-up fails without it, and the answer-header tests fail
// if a Fastify release stops writing the headers from it.
import { createRequire } from 'node:module';
import helmet from '@fastify/helmet';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';

const { kReplyHeaders } = createRequire(import.meta.url)('fastify/lib/symbols.js') as { kReplyHeaders?: symbol };
if (typeof kReplyHeaders !== 'symbol')
  throw new Error('this Fastify release keeps no reply headers symbol: see security-headers.ts');

/** The headers Fastify will write for `reply`, by lower-case name. */
const headersOf = (reply: FastifyReply) =>
  (reply as unknown as Record<symbol, Record<string, string | string[] | number>>)[kReplyHeaders]!;

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
    const headers = Object.assign(headersOf(reply), request.url.startsWith('/docs') ? docs : api);
    if (requestIds) headers['x-request-id'] = request.id;
    done();
  });
}
