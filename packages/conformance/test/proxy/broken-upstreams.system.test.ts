// The validating proxy in front of upstreams that break the contract (a tiny raw HTTP server answering what each test
// writes): every break is reported with its direction, operation and rule, the client still gets the upstream's
// bytes as sent, and the exit code says a violation was seen. Hostile upstreams (a flood, control characters,
// silence, no upstream at all) cost the proxy neither its memory nor its answer.
import { connect } from 'node:net';
import { type ProxyRun, rulesOf, startProxyRun } from '@plant-store/test-kit/proxy-run';
import { type RawAnswer, type RawUpstream, rawAnswer, startRawUpstream } from '@plant-store/test-kit/raw-upstream';
import { afterEach, describe, expect, it } from 'vitest';
import type { ProxyReport } from '../../src/proxy/violations.js';

const json = { 'content-type': 'application/json' };
const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((item) => item.close()));
});

async function through(
  answer: RawAnswer,
  options: string[] = [],
): Promise<{ upstream: RawUpstream; proxy: ProxyRun<ProxyReport> }> {
  const upstream = await startRawUpstream(answer);
  open.push(upstream);
  const proxy = await startProxyRun<ProxyReport>(upstream.url, options);
  return { upstream, proxy };
}

const auth = { authorization: 'Bearer t' };

describe('plant-store-conformance proxy against broken upstreams', () => {
  it('reports a list of the wrong shape, and passes its bytes on unchanged', async () => {
    const body = '{"plants":[{"name":"Fern","id":9007199254740993}]}';
    const { proxy } = await through(() => rawAnswer(200, body, json));
    const answer = await fetch(`${proxy.url}/plants`, { headers: auth });
    expect(await answer.text()).toBe(body);
    const stopped = await proxy.stop();
    expect(stopped.code).toBe(1);
    expect(rulesOf(stopped.report)).toEqual(['response getPlants schema']);
    expect(stopped.report.violations[0]).toMatchObject({
      direction: 'response',
      operation: 'getPlants',
      rule: 'schema',
    });
    expect(stopped.output).toContain('FAILED');
  });

  it('reports a 500 in plain text: a server error, not JSON, not the Error shape', async () => {
    const { proxy } = await through(() => rawAnswer(500, 'Internal Server Error', { 'content-type': 'text/plain' }));
    const answer = await fetch(`${proxy.url}/plants/5`, { method: 'DELETE', headers: auth });
    expect([answer.status, await answer.text()]).toEqual([500, 'Internal Server Error']);
    const { report } = await proxy.stop();
    expect(rulesOf(report)).toEqual([
      'response deletePlant content-type',
      'response deletePlant error-shape',
      'response deletePlant no-5xx',
    ]);
  });

  it('reports a HEAD answered with a body, and a HEAD whose headers are not those of the GET', async () => {
    const { proxy, upstream } = await through((request) =>
      request.method === 'HEAD'
        ? rawAnswer(200, '[{"name":"Fern"}]', json)
        : rawAnswer(200, '[]', { ...json, etag: 'W/"1"' }),
    );
    const answer = await fetch(`${proxy.url}/plants`, { method: 'HEAD', headers: auth });
    expect(answer.status).toBe(200);
    const { report } = await proxy.stop();
    expect(rulesOf(report)).toEqual(['response getPlants head']);
    expect(report.violations.map((violation) => violation.sample).join('\n')).toMatch(
      /HEAD was answered with a body[\s\S]*HEAD lacks etag, which GET sends|HEAD lacks etag, which GET sends[\s\S]*HEAD was answered with a body/,
    );
    // The proxy sent the GET it compared with itself.
    expect(upstream.requests.map((request) => request.method)).toEqual(['HEAD', 'GET']);
  });

  it('reports an id in an answer (rounded, as JSON.parse rounds it) and forwards the request id byte-exact', async () => {
    const { proxy, upstream } = await through(() => rawAnswer(200, '{"name":"Fern","id":9007199254740992}', json));
    const sent = '{"id":9007199254740993,"name":"Fern"}';
    await fetch(`${proxy.url}/plants`, { method: 'POST', headers: { ...auth, ...json }, body: sent });
    expect(upstream.requests[0]?.body.toString()).toBe(sent);
    const { report } = await proxy.stop();
    expect(rulesOf(report)).toEqual(['response createPlant undeclared-field']);
    expect(report.violations[0]?.sample).toContain('fields the contract does not declare: id');
  });

  it('forwards under the path the upstream URL names, and routes by the path the client sent', async () => {
    const upstream = await startRawUpstream(() => rawAnswer(200, '[]', json));
    open.push(upstream);
    const proxy = await startProxyRun<ProxyReport>(`${upstream.url}/api/v1/`);
    expect((await fetch(`${proxy.url}/plants?limit=5`, { headers: auth })).status).toBe(200);
    const { report } = await proxy.stop();
    expect(upstream.requests.map((request) => request.target)).toEqual(['/api/v1/plants?limit=5']);
    expect(report.violations).toEqual([]);
  });

  it('reports requests that break the contract, and paths and methods it does not have', async () => {
    const { proxy } = await through((request) =>
      rawAnswer(404, `{"error":404,"message":"no route ${request.target}"}`, json),
    );
    await fetch(`${proxy.url}/plants?limit=0&tag=x`, { headers: auth });
    await fetch(`${proxy.url}/plants`, { method: 'POST', headers: json, body: '{"name":"Fern","id":1.5}' });
    await fetch(`${proxy.url}/plants/abc`, { method: 'POST', headers: auth });
    await fetch(`${proxy.url}/nowhere`, { headers: auth });
    const { report } = await proxy.stop();
    expect(rulesOf(report)).toEqual([
      'request (undeclared) undeclared-method',
      'request (undeclared) undeclared-path',
      'request createPlant authorization',
      'request createPlant body',
      'request getPlants parameters',
    ]);
    const samples = report.violations.map((violation) => violation.sample).join('\n');
    expect(samples).toContain('unknown query parameter "tag"');
    expect(samples).toContain('body field "id" must be an integer from');
  });

  it('answers a request HTTP/1.1 does not allow in the Error shape, without forwarding it, and reports it', async () => {
    const { proxy, upstream } = await through(() => rawAnswer(200, '[]', json));
    const { port } = new URL(proxy.url);
    const raw = await new Promise<string>((resolve) => {
      let text = '';
      const socket = connect(Number(port), '127.0.0.1', () =>
        socket.write('GET /plants HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0001b\r\n\r\n'),
      );
      socket.on('data', (chunk) => {
        text += chunk.toString('latin1');
      });
      socket.on('close', () => resolve(text));
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4))).toEqual({
      error: 400,
      message: 'the request is not valid HTTP/1.1 (HPE_INVALID_HEADER_TOKEN)',
    });
    expect(upstream.requests).toHaveLength(0);
    const { report } = await proxy.stop();
    expect(rulesOf(report)).toEqual(['request (unreadable) http']);
  });

  it('forwards a flood whole without keeping it, and escapes control characters an upstream puts in its text', async () => {
    const flood = Buffer.alloc(3 * 1024 * 1024, 'a');
    const { proxy } = await through(
      (request) =>
        request.target === '/plants'
          ? rawAnswer(200, flood, json)
          : rawAnswer(400, '\u001b]0;owned\u0007', { 'content-type': 'text/\u009b2J' }),
      ['--max-answer-bytes', '1048576'],
    );
    const answer = await fetch(`${proxy.url}/plants`, { headers: auth });
    expect((await answer.arrayBuffer()).byteLength).toBe(flood.length);
    await fetch(`${proxy.url}/plants/1`, { method: 'DELETE', headers: auth, body: 'x' });
    const { report, output } = await proxy.stop();
    expect(rulesOf(report)).toContain('response getPlants body-size');
    expect(report.violations.find((v) => v.rule === 'body-size')?.sample).toContain('over 1048576 bytes');
    // The C1 CSI an upstream put in a header is shown as text, in the summary and in the report.
    const samples = report.violations.map((violation) => violation.sample).join('\n');
    expect(samples).toContain('content type text/\\u009b2J');
    for (const text of [output, samples]) {
      for (const control of ['\u001b', '\u0007', '\u009b']) expect(text).not.toContain(control);
    }
  });

  it('forwards unchecked, and counts, a body that finds the copy budget full, and checks again once it is free', async () => {
    const { proxy } = await through(
      (request) => rawAnswer(200, request.target === '/plants' ? `{"big":"${'a'.repeat(2000)}"}` : '{"small":1}', json),
      ['--max-copy-bytes', '1000'],
    );
    expect((await (await fetch(`${proxy.url}/plants`, { headers: auth })).text()).length).toBe(2010);
    await fetch(`${proxy.url}/plants?limit=1`, { headers: auth });
    const { report, output } = await proxy.stop();
    expect(report.unchecked).toBe(1);
    expect(output).toContain('1 bodies forwarded unchecked: the copies under way held --max-copy-bytes');
    expect(report.violations.map((violation) => violation.sample)).toEqual([
      expect.stringMatching(/^GET \/plants\?limit=1 answered 200: "\{\\"small\\":1\}" breaks its schema/),
    ]);
  });

  it('checks an answer still under way at the stop before writing the report, and forwards CORS preflights unchecked', async () => {
    const { proxy, upstream } = await through((request, socket) => {
      if (request.method === 'OPTIONS') return rawAnswer(204, '', { 'access-control-allow-origin': '*' });
      setTimeout(() => socket.end(rawAnswer(200, '{"not":"a list"}', json)), 300);
      return 'silent';
    });
    const preflight = await fetch(`${proxy.url}/plants`, {
      method: 'OPTIONS',
      headers: { origin: 'http://app.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    const late = fetch(`${proxy.url}/plants`, { headers: auth });
    while (upstream.requests.length < 2) await new Promise((resolve) => setTimeout(resolve, 10));
    const { report } = await proxy.stop();
    expect((await late).status).toBe(200);
    expect(report.requests).toBe(2);
    expect(rulesOf(report)).toEqual(['response getPlants schema']);
  });

  it('reports an answer broken off, one that is not UTF-8, and one it cannot pass on (answered 502)', async () => {
    const { proxy } = await through((request) => {
      if (request.target === '/plants/1') return Buffer.from('HTTP/1.1 404 X\r\ncontent-length: 100\r\n\r\n{"error":');
      if (request.target === '/plants/2') return rawAnswer(404, Buffer.from([0x7b, 0xff, 0x7d]), json);
      return Buffer.from('HTTP/1.1 099 X\r\ncontent-length: 0\r\n\r\n');
    });
    const cut = await fetch(`${proxy.url}/plants/1`, { method: 'DELETE', headers: auth });
    await expect(cut.text()).rejects.toThrow();
    expect((await fetch(`${proxy.url}/plants/2`, { method: 'DELETE', headers: auth })).status).toBe(404);
    const odd = await fetch(`${proxy.url}/plants/3`, { method: 'DELETE', headers: auth });
    expect(odd.status).toBe(502);
    expect(await odd.json()).toMatchObject({ error: 502, message: expect.stringContaining('cannot be passed on') });
    const { report } = await proxy.stop();
    expect(report.kinds).toEqual([
      { direction: 'response', operation: 'deletePlant', rule: 'answered', count: 2 },
      { direction: 'response', operation: 'deletePlant', rule: 'encoding', count: 1 },
    ]);
    expect(report.violations[0]?.sample).toBe('DELETE /plants/1: the upstream broke off its answer');
  });

  it('answers 504 in the Error shape when the upstream is silent past --timeout, cuts an answer it stalls, 502 when it is not there', async () => {
    const { proxy } = await through(
      (request, socket) => {
        if (request.target === '/plants?limit=1') socket.write('HTTP/1.1 200 X\r\ncontent-length: 10\r\n\r\n[');
        return 'silent';
      },
      ['--timeout', '1'],
    );
    const answer = await fetch(`${proxy.url}/plants`, { headers: auth });
    expect(answer.status).toBe(504);
    expect(await answer.json()).toMatchObject({ error: 504, message: expect.stringContaining('sent nothing for 1 s') });
    const stalled = await fetch(`${proxy.url}/plants?limit=1`, { headers: auth });
    await expect(stalled.text()).rejects.toThrow();
    const stopped = await proxy.stop();
    expect(stopped.report.kinds).toEqual([
      { direction: 'response', operation: 'getPlants', rule: 'answered', count: 2 },
    ]);
    expect(stopped.report.violations[1]?.sample).toBe(
      'GET /plants?limit=1: the upstream sent nothing for 1 s in the middle of its answer',
    );

    const nowhere = await startRawUpstream(() => 'silent');
    await nowhere.close();
    const gone = await startProxyRun<ProxyReport>(nowhere.url);
    const refused = await fetch(`${gone.url}/plants`, { headers: auth });
    expect(refused.status).toBe(502);
    expect(await refused.json()).toMatchObject({ error: 502, message: expect.stringContaining('ECONNREFUSED') });
    expect(rulesOf((await gone.stop()).report)).toEqual(['response getPlants answered']);
  });
});
