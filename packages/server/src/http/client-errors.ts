// Node's own answer to a request it cannot parse as HTTP (no Fastify request exists yet, so the error handler never
// sees it): written straight to the socket, in the contract's Error shape instead of Node's or Fastify's.
import type { Socket } from 'node:net';
import { errorBodyText } from './error-handler.js';

export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
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
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
