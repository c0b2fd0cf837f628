// The access line is written as text, not by pino: it must be the line pino writes for the same request, byte for
// byte but the time, and a request's logger must write through pino's child only when something is logged.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { AccessLog, accessLine, quoted, RequestLog, requestLog } from '../../src/http/logger.js';
import { redactQuery } from '../../src/http/url-redaction.js';

function capturingLogger(level = 'info') {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const serializers = {
    req: (request: { method: string; url: string; ip: string }) => ({
      method: request.method,
      url: redactQuery(request.url),
      remoteAddress: request.ip,
    }),
    res: (reply: { statusCode: number }) => ({ statusCode: reply.statusCode }),
  };
  return { logger: pino({ level, serializers }, stream), lines };
}

const requests = [
  { method: 'GET', url: '/plants?limit=100', ip: '127.0.0.1' },
  { method: 'POST', url: '/plants?access_token=pst_secret&x="quoted"\\', ip: '::1' },
  { method: 'DELETE', url: '/plants/9007199254740993?%61ccess_token=x', ip: '10.0.0.1' },
  { method: 'GET', url: '/pl\u00e4nts/\u007f\t\u2028\ud800', ip: '::ffff:127.0.0.1' },
];

describe('the access line', () => {
  it('quotes every text as JSON.stringify does, each character and mixes of them', () => {
    for (let code = 0; code < 0x3000; code++) {
      const char = String.fromCharCode(code);
      expect(quoted(char)).toBe(JSON.stringify(char));
      expect(quoted(`a${char}b`)).toBe(JSON.stringify(`a${char}b`));
    }
    expect(quoted('')).toBe('""');
  });

  it.each(requests)('is the line pino writes for $method $url, with the time its own', async (request) => {
    const { logger, lines } = capturingLogger();
    const bindings = { reqId: 'req-1:a.b' };
    logger.child(bindings).info({ req: request, res: { statusCode: 201 }, responseTime: 1.25 }, 'request completed');
    await new Promise((resolve) => setImmediate(resolve));
    const fromPino = lines[0]!;
    const time = Number(/"time":(\d+)/.exec(fromPino)?.[1]);
    expect(accessLine({ time, root: logger, bindings, ...request, statusCode: 201, responseTime: 1.25 })).toBe(
      fromPino,
    );
    expect(fromPino).not.toContain('pst_secret');
  });
});

it('gives the response time in milliseconds to the microsecond, on the text line and on pino lines alike', async () => {
  const { logger, lines } = capturingLogger();
  const log = new RequestLog(logger, { reqId: 'r-1' }, {});
  const request = { method: 'GET', url: '/plants', ip: '127.0.0.1', log };
  const answered = { log, statusCode: 200, elapsedTime: 1.2345678901234 };
  new AccessLog(true).requestCompleted(null, request as never, answered as never);
  new AccessLog(true).requestCompleted(new Error('boom'), request as never, { ...answered, statusCode: 500 } as never);
  await new Promise((resolve) => setImmediate(resolve));
  expect(lines.map((line) => JSON.parse(line).responseTime)).toEqual([1.235, 1.235]);
});

describe('without ACCESS_LOG', () => {
  it('writes no line for an answered request, at info or debug, and still the line of one that errored', async () => {
    const { logger, lines } = capturingLogger('debug');
    const log = new RequestLog(logger, { reqId: 'r-2' }, {});
    const request = { method: 'GET', url: '/plants', ip: '127.0.0.1', log };
    const answered = { log, statusCode: 200, elapsedTime: 1.5 };
    const access = new AccessLog(false);
    access.incomingRequest(request as never);
    access.requestCompleted(null, request as never, answered as never);
    access.requestCompleted(new Error('boom'), request as never, { ...answered, statusCode: 500 } as never);
    await new Promise((resolve) => setImmediate(resolve));
    const written = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(written).toHaveLength(1);
    expect(written[0]).toMatchObject({ level: 50, reqId: 'r-2', msg: 'request errored', err: { message: 'boom' } });
  });

  it('with it, writes both lines at debug', async () => {
    const { logger, lines } = capturingLogger('debug');
    const log = new RequestLog(logger, { reqId: 'r-3' }, {});
    const request = { method: 'GET', url: '/plants', ip: '127.0.0.1', log };
    const access = new AccessLog(true);
    access.incomingRequest(request as never);
    access.requestCompleted(null, request as never, { log, statusCode: 200, elapsedTime: 1 } as never);
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines.map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual([
      'incoming request',
      'request completed',
    ]);
  });
});

describe('a request logger', () => {
  it('makes no child for lines below the level, and writes the others with the request id', async () => {
    const { logger, lines } = capturingLogger('info');
    const child = vi.spyOn(logger, 'child');
    const log = requestLog(logger, { reqId: 'r-7' }, {}) as unknown as RequestLog;
    expect(log).toBeInstanceOf(RequestLog);
    log.debug({ detail: 1 }, 'not written');
    expect(child).not.toHaveBeenCalled();
    log.info({ status: 404 }, 'request refused');
    log.error(new Error('boom'));
    expect(child).toHaveBeenCalledTimes(1);
    await new Promise((resolve) => setImmediate(resolve));
    const written = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(written).toHaveLength(2);
    expect(written[0]).toMatchObject({ level: 30, reqId: 'r-7', status: 404, msg: 'request refused' });
    expect(written[1]).toMatchObject({ level: 50, reqId: 'r-7', err: { message: 'boom' } });
  });

  it('is pino’s own child when the route sets a level or serializers', () => {
    const { logger } = capturingLogger();
    expect(requestLog(logger, { reqId: 'x' }, { level: 'debug' })).not.toBeInstanceOf(RequestLog);
  });
});

describe('with the log off', () => {
  it('writes nothing and throws nothing for a request logger over a stand-in that is not pino', () => {
    // Fastify's logger when LOG_LEVEL=silent: methods that do nothing, no level, no stream.
    const noop = () => {};
    const standIn = {
      info: noop,
      error: noop,
      warn: noop,
      debug: noop,
      trace: noop,
      fatal: noop,
      child: () => standIn,
    };
    const log = new RequestLog(standIn as never, { reqId: 'r-1' }, {});
    expect(() => log.error(new Error('boom'))).not.toThrow();
    const request = { method: 'GET', url: '/plants', ip: '127.0.0.1', log };
    const reply = { log, statusCode: 200, elapsedTime: 1 };
    expect(() => new AccessLog(true).requestCompleted(null, request as never, reply as never)).not.toThrow();
  });
});
