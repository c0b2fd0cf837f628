// The floor (src/floor-server.ts, started by targets.ts's floorOf): node:http repeating the answer it recorded from a
// source server, the same body bytes and headers, to every request; the open-loop generator measures it like any
// target (src/open-loop.ts).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sparePort } from '@plant-store/test-kit/spare-port';
import { describe, expect, it } from 'vitest';
import { openLoop } from '../src/open-loop.js';
import { floorOf, type Running } from '../src/targets.js';

const BODY = Buffer.from(JSON.stringify({ items: [{ id: 1, name: 'plant number 1 \u00e9' }], next: null }));

describe('the floor server', () => {
  it("repeats the source's answer to the source's principal byte for byte, headers included", async () => {
    const seen: (string | undefined)[] = [];
    const source = createServer((request, response) => {
      seen.push(request.headers.authorization);
      response
        .writeHead(200, {
          'content-type': 'application/json; charset=utf-8',
          etag: 'W/"7"',
          'x-content-type-options': 'nosniff',
        })
        .end(BODY);
    });
    await new Promise<void>((resolve) => source.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(source.address() as AddressInfo).port}`;
    const running: Running = { url, pid: process.pid, token: 't0', tokens: ['t0', 't1'], stop: async () => {} };
    const floor = await floorOf(running).start(await sparePort());
    try {
      expect(seen).toEqual(['Bearer t0']);
      expect(floor.token).toBe('t0');
      for (const _ of [1, 2]) {
        const answer = await fetch(`${floor.url}/plants?limit=100`, { headers: { authorization: 'Bearer t0' } });
        expect(answer.status).toBe(200);
        expect(Buffer.from(await answer.arrayBuffer()).equals(BODY)).toBe(true);
        expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
        expect(answer.headers.get('etag')).toBe('W/"7"');
        expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
        expect(answer.headers.get('content-length')).toBe(String(BODY.length));
      }

      const run = await openLoop({
        url: floor.url,
        rate: 400,
        seconds: 1,
        kind: 'get',
        tokens: [floor.token],
        base: 0,
        serverPid: floor.pid,
      });
      expect(run.sent).toBe(400);
      expect(run.answered).toBe(400);
      expect(run.errors + run.non2xx).toBe(0);
      expect(run.serverCpuUsPerRequest).toBeGreaterThanOrEqual(0);
    } finally {
      await floor.stop();
      source.close();
    }
  }, 60_000);
});
