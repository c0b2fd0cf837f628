// Answers written outside Fastify's reply, and the rule that a request gets one answer only.
// - Node's own answer to a request it cannot parse as HTTP (no Fastify request exists yet, so the error handler never
//   sees it): written straight to the socket, in the contract's Error shape with the headers every answer carries,
//   and never over an earlier request's answer that is still being written (pipelining): in order, then close.
// - An answer given while the client is still sending its body (an early 401, 404, 413...) closes the connection,
//   so the rest of the body is never used and no second answer (a 408 ten seconds later) can follow; the close
//   lingers (request-bodies.ts), so the client reads that answer rather than a reset.
// - An error that concerns the body of the request in flight (its deadline passed, the client went away mid-body, a
//   broken chunk) ends that request now, never waiting for its answer: that answer is waiting for the body.
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { ApiError } from '@plant-store/contract';
import type { FastifyInstance } from 'fastify';
import { errorBodyText } from './error-handler.js';
import { bodyStillArriving, failBody, lingeringClose } from './request-bodies.js';
import { freshRequestId } from './request-id.js';

/** Status, reason phrase and message for an error Node's HTTP parser or timers report on a connection. */
function answerFor(error: Error & { code?: string }, midBody: boolean): [number, string, string] {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return [
      408,
      'Request Timeout',
      midBody ? 'the request body took too long to arrive' : 'the request took too long to arrive',
    ];
  }
  if (error.code === 'HPE_HEADER_OVERFLOW')
    return [431, 'Request Header Fields Too Large', 'the request headers are too large'];
  if (midBody && error.code === 'HPE_INVALID_EOF_STATE') {
    return [400, 'Bad Request', 'the connection ended before the request body was complete'];
  }
  return [
    400,
    'Bad Request',
    midBody ? 'the request body could not be parsed as HTTP' : 'the request could not be parsed as HTTP',
  ];
}

export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (inFlight && bodyStillArriving(inFlight)) {
    // The request in flight is the one whose body broke off: its answer comes from here, now.
    const [status, , message] = answerFor(error, true);
    if (failBody(inFlight, new ApiError(status, message))) return;
    writeAnswer(socket, error, true);
    lingeringClose(socket);
    return;
  }
  // An earlier request on this connection is still being answered (pipelining): answer in order, never over it.
  if (inFlight && !inFlight.writableFinished) {
    inFlight.once('finish', () => clientErrorHandler(error, socket));
    inFlight.once('close', () => {
      if (!inFlight.writableFinished) socket.destroy();
    });
    return;
  }
  writeAnswer(socket, error, false);
  lingeringClose(socket);
}

function writeAnswer(socket: Socket, error: Error & { code?: string }, midBody: boolean): void {
  const [status, reason, message] = answerFor(error, midBody);
  const body = errorBodyText(status, message);
  socket.write(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${freshRequestId()}\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
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
