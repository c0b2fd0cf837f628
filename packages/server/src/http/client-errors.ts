// Answers written outside Fastify's reply, and the rule that a request gets one answer only.
// - Node's own answer to a request it cannot parse as HTTP (no Fastify request exists yet, so the error handler never
//   sees it): written straight to the socket, in the contract's Error shape with the headers every answer carries,
//   and never over an earlier request's answer that is still being written (pipelining): in order, then close.
// - An answer given while the client is still sending its body (an early 401, 404, 413...) closes the connection,
//   so the rest of the body is never read and no second answer (a 408 ten seconds later) can follow.
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { errorBodyText } from './error-handler.js';

export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  // An earlier request on this connection is still being answered (pipelining): answer in order, never over it.
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (inFlight && !inFlight.writableFinished) {
    inFlight.once('finish', () => clientErrorHandler(error, socket));
    inFlight.once('close', () => {
      if (!inFlight.writableFinished) socket.destroy();
    });
    return;
  }
  const [status, reason, message] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Request Timeout', 'the request took too long to arrive']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', 'the request headers are too large']
        : [400, 'Bad Request', 'the request could not be parsed as HTTP'];
  const body = errorBodyText(status, message);
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${randomUUID()}\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** Closes the connection behind an answer sent before the request's body has fully arrived. */
export function registerCloseAfterEarlyAnswer(app: FastifyInstance): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    const raw = request.raw;
    if (
      !raw.complete &&
      (raw.headers['transfer-encoding'] !== undefined || Number(raw.headers['content-length']) > 0)
    ) {
      reply.header('connection', 'close');
    }
    done(null, payload);
  });
}
