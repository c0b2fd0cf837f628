// The validating proxy's parts that need no socket: the bounded violation record and its report, the HEAD-against-GET
// comparison, the routing of requests to the contract's operations, and the command line's options.
import { BODY_LIMIT_BYTES } from '@plant-store/contract';
import { describe, expect, it } from 'vitest';
import { loadConformanceContract } from '../../src/contract.js';
import { MAX_ANSWER_BYTES } from '../../src/http-client.js';
import { parseProxyArguments } from '../../src/proxy/arguments.js';
import { CappedBody, CopyBudget } from '../../src/proxy/capped-body.js';
import { answerHeaders, flatHeaders, forwardedHeaders, originForm } from '../../src/proxy/forwarding.js';
import { headMismatch } from '../../src/proxy/head-check.js';
import { requestProblems } from '../../src/proxy/request-checks.js';
import { type Route, routerOf } from '../../src/proxy/routes.js';
import { SAMPLES_PER_KIND, Violations } from '../../src/proxy/violations.js';

describe('Violations', () => {
  it('counts every violation but keeps only the first samples of each kind, escaped and cut short', () => {
    const violations = new Violations();
    for (let index = 0; index < 50; index++) {
      violations.add('response', 'getPlants', 'schema', `answer ${index} \u001b[2J ${'x'.repeat(2000)}`);
    }
    violations.add('request', 'createPlant', 'body', 'bad');
    const report = violations.report('http://upstream/', new Date(0));
    expect(report.violationCount).toBe(51);
    expect(report.kinds).toEqual([
      { direction: 'response', operation: 'getPlants', rule: 'schema', count: 50 },
      { direction: 'request', operation: 'createPlant', rule: 'body', count: 1 },
    ]);
    expect(report.violations).toHaveLength(SAMPLES_PER_KIND + 1);
    expect(report.violations[0]?.sample).toMatch(/^answer 0 \\u001b\[2J x+\.\.\.$/);
    expect(report.violations[0]?.sample.length).toBeLessThan(1100);
    expect(violations.summary()[0]).toBe('0 requests forwarded, 51 violations of the contract');
  });
});

describe('CappedBody', () => {
  it('keeps a copy up to its cap and within the budget all copies share, and gives the budget back', () => {
    const budget = new CopyBudget(10);
    const first = new CappedBody(8, budget);
    first.push(Buffer.from('[1,'));
    first.push(Buffer.from('2]'));
    expect([first.dropped, first.text()]).toEqual([undefined, '[1,2]']);
    const second = new CappedBody(8, budget);
    second.push(Buffer.from('123456'));
    expect(second.dropped).toBe('budget');
    first.release();
    const third = new CappedBody(8, budget);
    third.push(Buffer.from('12345'));
    third.push(Buffer.from('6789'));
    expect([third.dropped, third.bytes]).toEqual(['cap', 9]);
    // Both let go of what they held: the whole budget is free again.
    expect(budget.take(10)).toBe(true);
  });
});

describe('forwarding', () => {
  it('drops hop-by-hop headers (and those Connection names) and Accept-Encoding, sets Host, keeps the rest', () => {
    const headers = {
      host: 'proxy:4010',
      connection: 'keep-alive, x-hop',
      'x-hop': '1',
      'keep-alive': 'timeout=5',
      'accept-encoding': 'gzip',
      authorization: 'Bearer t',
      'content-length': '12',
      'idempotency-key': 'k',
    };
    expect(forwardedHeaders(headers, new URL('https://api.example:8443/base'))).toEqual({
      authorization: 'Bearer t',
      'content-length': '12',
      'idempotency-key': 'k',
      host: 'api.example:8443',
    });
  });
  it("passes the answer's headers as the upstream spelled them, repeats kept, and reads them as fetch does", () => {
    const raw = ['Content-Type', 'application/json', 'Connection', 'close', 'Set-Cookie', 'a=1', 'Set-Cookie', 'b=2'];
    expect(answerHeaders(raw)).toEqual(['Content-Type', 'application/json', 'Set-Cookie', 'a=1', 'Set-Cookie', 'b=2']);
    expect(flatHeaders({ 'set-cookie': ['a=1', 'b=2'], etag: 'W/"1"' })).toEqual({
      'set-cookie': 'a=1, b=2',
      etag: 'W/"1"',
    });
  });
  it('turns an absolute request target into its path and query, and leaves others as sent', () => {
    expect(originForm('http://localhost:4010/plants?limit=5')).toBe('/plants?limit=5');
    expect(originForm('/plants/1')).toBe('/plants/1');
    expect(originForm('*')).toBe('*');
  });
});

describe('headMismatch', () => {
  const get = { status: 200, headers: { 'content-type': 'application/json', etag: 'W/"1"', 'content-length': '2' } };
  it('accepts the same status and headers (Content-Length and Date may differ)', () => {
    expect(headMismatch({ status: 200, headers: { 'content-type': 'application/json', etag: 'W/"2"' } }, get)).toBe(
      undefined,
    );
  });
  it('names a status, a missing or extra header and another content type', () => {
    expect(headMismatch({ status: 500, headers: {} }, get)).toBe('HEAD answered 500, GET 200');
    expect(headMismatch({ status: 200, headers: { 'content-type': 'text/plain', 'x-extra': '1' } }, get)).toBe(
      "HEAD lacks etag, which GET sends; HEAD sends x-extra, which GET does not; HEAD's Content-Type is text/plain, GET's application/json",
    );
  });
  it('proves nothing when the GET met a rate limit or an unavailable service', () => {
    expect(headMismatch({ status: 200, headers: {} }, { status: 429, headers: {} })).toBe(undefined);
  });
});

describe('routerOf', () => {
  const route = routerOf(loadConformanceContract());
  it('routes by path template and method, HEAD as GET, with path parameters percent-decoded', () => {
    expect(route('HEAD', '/plants')).toMatchObject({ kind: 'operation', operation: { operationId: 'getPlants' } });
    expect(route('DELETE', '/plants/%2D5')).toMatchObject({
      operation: { operationId: 'deletePlant' },
      path: { id: '-5' },
    });
  });
  it('tells an undeclared path from an undeclared method, with the methods the path takes', () => {
    expect(route('GET', '/plants/1/leaves')).toEqual({ kind: 'undeclared-path' });
    expect(route('PATCH', '/plants')).toEqual({ kind: 'undeclared-method', allowed: ['GET', 'POST', 'HEAD'] });
  });
});

describe('requestProblems', () => {
  const route = routerOf(loadConformanceContract());
  const problems = (method: string, target: string, headers: Record<string, string>, body: string | Buffer = '') => {
    const [path = '', query = ''] = target.split('?');
    const copy = new CappedBody(BODY_LIMIT_BYTES, new CopyBudget(BODY_LIMIT_BYTES));
    if (body.length > 0) copy.push(Buffer.from(body));
    return requestProblems(route(method, path) as Route, { query: new URLSearchParams(query), headers, body: copy });
  };
  const json = { authorization: 'Bearer t', 'content-type': 'application/json' };

  it('passes a request that keeps every rule, ids beyond 2^53 included', () => {
    expect(
      problems('POST', '/plants', { ...json, 'idempotency-key': 'k-1' }, '{"id":9223372036854775807,"name":"Fern"}'),
    ).toEqual([]);
    expect(problems('DELETE', '/plants/-9223372036854775808', { authorization: 'Bearer t' })).toEqual([]);
  });

  it('names each broken rule: token, header parameter, media type, size, encoding, JSON, fields, a body where none is taken', () => {
    const rules = (list: { rule: string; problem: string }[]) => list.map(({ rule, problem }) => `${rule}: ${problem}`);
    expect(rules(problems('GET', '/plants?limit=5', { authorization: 'Basic dTpw' }))).toEqual([
      'authorization: getPlants needs Authorization: Bearer <token>, got another form',
    ]);
    expect(
      rules(problems('POST', '/plants', { ...json, 'idempotency-key': 'has space' }, '{"id":1,"name":"F"}')),
    ).toEqual(['header: header "Idempotency-Key" must be visible ASCII characters, without spaces']);
    expect(
      rules(
        problems('POST', '/plants', { authorization: 'Bearer t', 'content-type': 'text/plain' }, '{"id":1,"name":"F"}'),
      ),
    ).toEqual(['content-type: the body is sent as text/plain, not application/json']);
    expect(rules(problems('POST', '/plants', json, `{"id":1,"name":"${'a'.repeat(BODY_LIMIT_BYTES)}"}`))[0]).toMatch(
      /^body-size: the body has 1640\d bytes; the contract's limit is 16384$/,
    );
    expect(rules(problems('POST', '/plants', json, Buffer.from([0x7b, 0xff, 0x7d])))).toEqual([
      'body: the body is not UTF-8',
    ]);
    expect(rules(problems('POST', '/plants', json))).toEqual(['body: createPlant requires a JSON body, got none']);
    expect(rules(problems('POST', '/plants', json, '{"id":9223372036854775808,"name":"F"}'))[0]).toContain(
      'body field "id" must be an integer from -9223372036854775808',
    );
    expect(rules(problems('POST', '/plants', json, '{"id":1,"name":"F","colour":"green"}'))[0]).toContain(
      'has an unknown field "colour"',
    );
    expect(rules(problems('DELETE', '/plants/1', json, '{}'))).toEqual([
      'body: deletePlant takes no body, got 2 bytes',
    ]);
    expect(rules(problems('DELETE', '/plants/1.5', { authorization: 'Bearer t' }))).toEqual([
      'parameters: path parameter "id" must be an integer',
    ]);
  });
});

describe('parseProxyArguments', () => {
  it('takes the upstream and port, with defaults for the rest', () => {
    expect(parseProxyArguments(['--upstream', 'http://localhost:3000', '--port', '8080'])).toEqual({
      upstream: new URL('http://localhost:3000'),
      port: 8080,
      host: '127.0.0.1',
      report: undefined,
      timeoutMs: 30_000,
      maxAnswerBytes: MAX_ANSWER_BYTES,
      maxCopyBytes: 16 * MAX_ANSWER_BYTES,
    });
  });
  it('refuses what it cannot use, saying why', () => {
    const refusal = (argv: string[]) => {
      try {
        parseProxyArguments(argv);
        return undefined;
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(refusal(['--upstream', 'ftp://x', '--port', '1'])).toContain('must be http:// or https://');
    expect(refusal(['--upstream', 'http://x?a=1', '--port', '1'])).toContain('takes no query');
    expect(refusal(['--upstream', 'http://x'])).toContain('--port must be a whole number from 0 to 65535');
    expect(refusal(['--upstream', 'http://x', '--port', '1', '--timeout', '0'])).toContain('--timeout must be');
    expect(refusal(['--upstream', 'http://x', '--port', '1', '--report', '/nonexistent/r.json'])).toContain(
      'there is no folder /nonexistent',
    );
    expect(refusal(['--upstream', 'http://x', '--port', '1', '--report', '/tmp'])).toContain('it is a folder');
  });
});
