// Request bodies that never finish arriving, and connections closed while a client may still be sending.
// - A body still arriving when REQUEST_TIMEOUT_MS ends (Node's requestTimeout, nginx's client_body_timeout) fails
//   with 408, a client that goes away mid-body (FIN) with 400, and on shutdown one still arriving after a short grace
//   with 503: the error is handed to the request's body stream, so the app answers it in the contract's shape
//   (with Connection: close) and the handler never runs. client-errors.ts calls failBody; shutdown is below.
// - Closing a connection whose client is still sending would make the kernel reset it, and the client would read
//   EPIPE/ECONNRESET instead of the answer (an early 413 for an oversized body). Like nginx's lingering_close, the
//   socket first shuts down its sending side, then reads and discards for at most LINGER_MS and LINGER_BYTES.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { ApiError } from '@plant-store/contract';
import type { FastifyInstance } from 'fastify';
import { errorBodyText } from './error-handler.js';

/** Longest a closing connection keeps reading and discarding what its client still sends (nginx: 30 s). */
export const LINGER_MS = 5_000;
/** Most bytes a closing connection reads and discards before it is reset anyway: twice a 16 MiB upload. */
export const LINGER_BYTES = 32 * 1024 * 1024;
/** On shutdown: how long a body still arriving gets to finish, and how long closing connections then linger. */
const SHUTDOWN_GRACE_MS = 500;
const SHUTDOWN_LINGER_MS = 1_000;

/** True when `response` has not started and its request's body is still arriving (the error concerns that body). */
export function bodyStillArriving(response: ServerResponse): boolean {
  const request = (response as ServerResponse & { req?: IncomingMessage }).req;
  return request !== undefined && !request.complete && !response.headersSent;
}

/**
 * Fails the body `response`'s request is still waiting for: the app's body reader gets `error` and answers it
 * (the handler never runs). False when no reader is attached yet, so the caller answers on the socket itself.
 */
export function failBody(response: ServerResponse, error: ApiError): boolean {
  const request = (response as ServerResponse & { req?: IncomingMessage }).req;
  if (!request || request.listenerCount('error') === 0 || request.listenerCount('data') === 0) return false;
  request.emit('error', error);
  return true;
}

/** Whether the request announces a body (RFC 9112 6.3: a Content-Length above 0, or a Transfer-Encoding). */
function hasBody(request: IncomingMessage): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** Sockets lingering now, with their deadline, so a shutdown can shorten it. */
const lingering = new Map<Socket, NodeJS.Timeout>();

/**
 * Closes `socket` without resetting a client that is still sending: ends the sending side at once (after what is
 * queued), then destroys the socket when the client ends its side, or after `lingerMs`, or beyond LINGER_BYTES.
 */
export function lingeringClose(socket: Socket, lingerMs = LINGER_MS): void {
  if (socket.destroyed || lingering.has(socket)) return;
  if (socket.readableEnded) {
    socket.end(() => socket.destroy());
    return;
  }
  const startBytes = socket.bytesRead;
  lingering.set(
    socket,
    setTimeout(() => socket.destroy(), lingerMs),
  );
  const sizeCheck = setInterval(() => {
    if (socket.bytesRead - startBytes > LINGER_BYTES) socket.destroy();
  }, 100);
  socket.once('end', () => socket.destroy());
  socket.once('close', () => {
    clearTimeout(lingering.get(socket));
    lingering.delete(socket);
    clearInterval(sizeCheck);
  });
  socket.end();
}

/** Cuts every lingering connection's remaining time to at most `lingerMs`. */
function shortenLingering(lingerMs: number): void {
  for (const [socket, deadline] of lingering) {
    clearTimeout(deadline);
    lingering.set(
      socket,
      setTimeout(() => socket.destroy(), lingerMs),
    );
  }
}

/**
 * Installs the lingering close on every connection (Node closes a connection after a `Connection: close` answer
 * with destroySoon), and the shutdown rule: bodies still arriving SHUTDOWN_GRACE_MS after close() began get 503.
 */
export function registerRequestBodies(app: FastifyInstance): void {
  const server: Server = app.server;
  const arriving = new Set<ServerResponse>();
  const lingerMs = { value: LINGER_MS };
  server.on('connection', (socket: Socket) => {
    socket.destroySoon = () => lingeringClose(socket, lingerMs.value);
  });
  const track = (request: IncomingMessage, response: ServerResponse) => {
    // A request with neither Content-Length nor Transfer-Encoding has no body (RFC 9112 6.3), so none can still be
    // arriving: most requests (every GET) skip the three listeners.
    if (request.complete || !hasBody(request)) return;
    arriving.add(response);
    const done = () => arriving.delete(response);
    request.once('end', done);
    response.once('close', done);
    response.once('finish', done);
  };
  server.on('request', track);
  server.on('checkContinue', track);
  app.addHook('preClose', (done) => {
    lingerMs.value = SHUTDOWN_LINGER_MS;
    shortenLingering(SHUTDOWN_LINGER_MS);
    setTimeout(() => {
      for (const response of arriving) {
        if (!bodyStillArriving(response)) continue;
        const message = 'the service is shutting down; retry the request';
        if (failBody(response, new ApiError(503, message, { 'retry-after': '1' }))) continue;
        // No body reader yet (the request is still in its hooks): answer on the response itself.
        response
          .writeHead(503, {
            'content-type': 'application/json; charset=utf-8',
            'retry-after': '1',
            connection: 'close',
          })
          .end(errorBodyText(503, message));
      }
    }, SHUTDOWN_GRACE_MS).unref();
    done();
  });
}
