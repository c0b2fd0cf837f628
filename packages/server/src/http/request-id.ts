// Request ids: a caller's sane x-request-id is kept, anything else replaced by a fresh id; every answer carries it, so a
// 5xx answer's id finds the details in the log (the header is set with the others, in security-headers.ts).
//
// A fresh id has a UUID's form (version 4, 36 characters) but is not drawn whole for each request: its first 28
// characters are drawn at random once per FIRST..LAST ids (90 random bits), its last 8 are a counter. Ids are unique
// within a process, and across processes and instances as far as 90 random bits go; what a request id needs is to
// find its log lines. randomUUID took 260-270 ns an id on the 2-core machine (its batched random bytes and their
// formatting), the counter 50-80 (docs/performance.md).
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

// The counter's range: every value is 8 hex digits, and a small integer for V8 (below 2^31).
const FIRST = 0x1000_0000;
const LAST = 0x7fff_ffff;

/** A random part, `xxxxxxxx-xxxx-4xxx-Vxxx-xxxx`: V, the variant, is one of 8, 9, a and b. */
function drawHead(): string {
  const hex = randomBytes(12).toString('hex');
  const variant = '89ab'[Number.parseInt(hex[16]!, 16) & 3];
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 24)}`;
}

/** Makes fresh ids: a random part, then a counter; a new random part after every `span` ids (all the range's). */
export function createIdMaker(span = LAST - FIRST + 1): () => string {
  let head = '';
  let next = 0;
  let end = 0;
  return () => {
    if (next >= end) {
      head = drawHead();
      next = FIRST;
      end = FIRST + Math.min(span, LAST - FIRST + 1);
    }
    return head + (next++).toString(16);
  };
}

/** A fresh request id. */
export const freshRequestId = createIdMaker();

/** Fastify's genReqId: the caller's id when it is sane, else a fresh one. */
export function requestId(request: IncomingMessage): string {
  const incoming = request.headers['x-request-id'];
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : freshRequestId();
}
