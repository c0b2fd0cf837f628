// The answer to a request Node's HTTP parser refuses (control bytes or non-ASCII in a header, headers past its limit):
// it cannot be forwarded, so a proxy answers it as the service does, in the contract's Error shape (431 for headers too
// large, else 400). The validating proxy's `clientError` handler, and the test kit's broken deployments' (a workspace
// subpath of this package, `@plant-store/conformance/unreadable-request`, not part of the published surface).
import type { Duplex } from 'node:stream';

/**
 * Answers the request `error` refused on `socket` and returns the status sent. A socket error with no request behind
 * it (a reset), or a socket that can no longer be written, is no request to answer: it is destroyed, and the result
 * is undefined.
 */
export function answerUnreadableRequest(error: NodeJS.ErrnoException, socket: Duplex): 400 | 431 | undefined {
  if (!error.code?.startsWith('HPE_') || !socket.writable) {
    socket.destroy();
    return undefined;
  }
  const [status, reason] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? ([431, 'Request Header Fields Too Large'] as const)
      : ([400, 'Bad Request'] as const);
  const body = JSON.stringify({ error: status, message: `the request is not valid HTTP/1.1 (${error.code})` });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
  return status;
}
