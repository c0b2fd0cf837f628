// HTTP metrics hooks: every answer observed in the request-duration histogram by method, route template (never the
// raw URL, so ids cannot blow up the label set), status and operationId; requests in flight; 429s by limit.
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { idle } from '../http/connection-shares.js';
import type { HistogramSeries } from './fast-histogram.js';
import type { Metrics } from './metrics.js';

// The semantic conventions' rule: a method outside the well-known set is recorded as _OTHER.
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'CONNECT', '_OTHER'];
const METHOD_INDEX = new Map(METHODS.map((method, index) => [method, index]));
const OTHER = METHODS.length - 1;

/** Registers the hooks; first of all the app's hooks, so answers given early (404, 429, 503) are counted too. */
export function registerHttpMetrics(app: FastifyInstance, metrics: Metrics): void {
  const { inFlight, requestDuration, rateLimitRejections } = metrics;
  countAnswering(app, inFlight);
  // The series of each route's answers by method and status, found from the route's own config object (one per
  // route) without building a key per request.
  const byRoute = new WeakMap<object, Map<number, HistogramSeries>>();
  const seriesOf = (request: FastifyRequest, status: number): HistogramSeries => {
    const config = request.routeOptions.config as { operationId?: string };
    let routeSeries = byRoute.get(config);
    if (!routeSeries) {
      routeSeries = new Map();
      byRoute.set(config, routeSeries);
    }
    const index = METHOD_INDEX.get(request.method) ?? OTHER;
    // A number: a key built from the method and status as text would be a new string, hashed anew, per request.
    const key = status * METHODS.length + index;
    let found = routeSeries.get(key);
    if (!found) {
      const method = METHODS[index]!;
      const route = request.routeOptions.url ?? '';
      const operationId = config.operationId ?? '';
      found = requestDuration.series(`${method} ${route} ${status} ${operationId}`, () => ({
        http_request_method: method,
        http_route: route,
        http_response_status_code: String(status),
        operation_id: operationId,
      }));
      routeSeries.set(key, found);
    }
    return found;
  };
  app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done) => {
    const status = reply.statusCode;
    seriesOf(request, status).observe(reply.elapsedTime / 1000);
    // Only the rate limits answer 429 (rate-limit.ts, anonymous-limit.ts).
    if (status === 429) rateLimitRejections.inc({ limit: request.principal === null ? 'anonymous' : 'principal' });
    done();
  });
}

/**
 * Requests in flight, counted when scraped from the server's open connections rather than per request (a listener on
 * every response was most of what the gauge cost): Node sets a connection's _httpMessage to the response under way
 * from the moment the request's head is read until the response is done, one at a time on HTTP/1.1 (a pipelined request
 * waits for its turn and is not counted until then). A connection that goes away leaves the set, so the count cannot
 * drift. Requests made with inject have no connection and are not counted.
 */
function countAnswering(app: FastifyInstance, inFlight: Metrics['inFlight']): void {
  const connections = new Set<Socket>();
  app.server.on('connection', (socket: Socket) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
  });
  inFlight.read = () => {
    let answering = 0;
    for (const socket of connections) if (!idle(socket)) answering++;
    return answering;
  };
}
