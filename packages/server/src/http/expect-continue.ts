// `Expect: 100-continue`: Node answers it by itself, before the token, the scope and Content-Length are checked, so
// a client would upload a body that is then refused. With a `checkContinue` listener (http-server.ts) Node leaves
// it to us: the 100 is sent only once the token, the scope, the rate limit (all earlier hooks), the Content-Length
// and the Content-Type say the body will be read; else the refusal comes instead of the 100.

import { ApiError, BODY_TOO_LARGE_MESSAGE } from '@plant-store/contract';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { BODY_LIMIT } from './json-body.js';

// A callback hook, not an async one: it runs on every request and almost always returns at once.
function sendContinue(
  request: FastifyRequest,
  reply: FastifyReply,
  _payload: unknown,
  done: (error?: Error | null) => void,
): void {
  const expect = request.headers.expect;
  if (expect === undefined || expect.toLowerCase() !== '100-continue' || reply.raw.headersSent) {
    done();
  } else if (Number(request.headers['content-length']) > BODY_LIMIT) {
    done(new ApiError(413, BODY_TOO_LARGE_MESSAGE));
  } else {
    if (/^application\/json\s*(;|$)/i.test(request.headers['content-type'] ?? '')) reply.raw.writeContinue();
    done();
  }
}

/** Adds sendContinue as the last preParsing hook of every route registered after this call. */
export function registerExpectContinue(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const existing = route.preParsing ? [route.preParsing].flat() : [];
    route.preParsing = [...existing, sendContinue as never];
  });
}
