// The broken deployments' proxy answers a request Node's HTTP parser refuses as the validating proxy does (it runs
// the same code, @plant-store/conformance/unreadable-request): byte for byte the same answer, in the contract's Error
// shape, and nothing forwarded. So the conformance checker's header fuzzing finds no fault of the proxy's own.
import { startProxy } from '@plant-store/test-kit/broken-deployments';
import { startProxyRun } from '@plant-store/test-kit/proxy-run';
import { openRaw, parseAnswers } from '@plant-store/test-kit/raw-socket';
import { rawAnswer, startRawUpstream } from '@plant-store/test-kit/raw-upstream';
import { expect, it } from 'vitest';

/** What `url` answers to `request`, written on a socket of its own, once it closes the connection. */
async function rawExchange(url: string, request: string): Promise<string> {
  const connection = await openRaw(url);
  connection.socket.write(request);
  const { text, closed } = await connection.closed();
  expect(closed, text).toBe(true);
  return text;
}

it.each([
  ['a control byte in a header', 'X-Bad: a\u0001b\r\n', 400, 'HPE_INVALID_HEADER_TOKEN'],
  ['headers beyond the parser limit', `X-Big: ${'x'.repeat(20_000)}\r\n`, 431, 'HPE_HEADER_OVERFLOW'],
])('answers %s as the validating proxy does, and forwards nothing', async (_name, header, status, code) => {
  const upstream = await startRawUpstream(() => rawAnswer(200, '[]', { 'content-type': 'application/json' }));
  const broken = await startProxy(upstream.url);
  const validating = await startProxyRun(upstream.url);
  try {
    const request = `GET /plants HTTP/1.1\r\nHost: x\r\n${header}\r\n`;
    const answer = await rawExchange(broken.url, request);
    expect(answer).toBe(await rawExchange(validating.url, request));
    const [parsed] = parseAnswers(answer);
    expect(parsed).toMatchObject({ status, headers: { 'content-type': 'application/json', connection: 'close' } });
    expect(JSON.parse(parsed!.body)).toEqual({ error: status, message: `the request is not valid HTTP/1.1 (${code})` });
    expect(broken.seen).toEqual([]);
    expect(upstream.requests).toHaveLength(0);
  } finally {
    await validating.stop();
    await broken.close();
    await upstream.close();
  }
});
