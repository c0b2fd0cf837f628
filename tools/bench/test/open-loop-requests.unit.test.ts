// The open-loop generator's requests (tools/bench/src/open-loop-requests.ts): reads built once and reused, creates
// with a Content-Length that matches their body.
import { describe, expect, it } from 'vitest';
import { OpenLoopRequests } from '../src/open-loop-requests.js';

describe('the open-loop requests', () => {
  const requests = new OpenLoopRequests('127.0.0.1', ['tokA', 'tokB'], [10, 100]);

  it('builds each read once, per principal and page size', () => {
    expect(requests.read(1, 10).toString()).toBe(
      'GET /plants?limit=10 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer tokB\r\n\r\n',
    );
    expect(requests.read(0, 100).toString()).toContain('limit=100');
    expect(requests.read(0, 100).toString()).toContain('Bearer tokA');
    expect(requests.read(0, 100)).toBe(requests.read(0, 100));
    expect(() => requests.read(0, 50)).toThrow(/no prebuilt read/);
  });

  it('makes a create whose Content-Length is its body', () => {
    const text = requests.create(1, 123_456_789, 42).toString('latin1');
    const [head, body] = text.split('\r\n\r\n') as [string, string];
    expect(head).toMatch(/^POST \/plants HTTP\/1\.1\r\nHost: 127\.0\.0\.1\r\nAuthorization: Bearer tokB\r\n/);
    expect(head).toContain('Content-Type: application/json');
    expect(Number(/Content-Length: (\d+)/.exec(head)?.[1])).toBe(Buffer.byteLength(body));
    expect(JSON.parse(body)).toEqual({ id: 123_456_789, name: 'open loop 42', tag: 'bench' });
  });
});
