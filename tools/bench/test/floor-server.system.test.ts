// The open loop's floor (src/floor-server.ts, started by targets.ts's floorServer): it answers every request, a head
// split between two reads included, and the open-loop generator measures it like any target, the server's CPU per
// request with it (src/open-loop.ts).
import { connect } from 'node:net';
import { sparePort } from '@plant-store/test-kit/spare-port';
import { describe, expect, it } from 'vitest';
import { openLoop } from '../src/open-loop.js';
import { floorServer } from '../src/targets.js';

/** Writes the parts with a pause between them and resolves with what came back once `answers` answers did. */
function exchange(port: number, parts: string[], answers: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('error', reject);
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
      if (received.split('HTTP/1.1 200 OK').length - 1 === answers) {
        socket.destroy();
        resolve(received);
      }
    });
    socket.on('connect', async () => {
      for (const part of parts) {
        socket.write(part);
        await new Promise((wait) => setTimeout(wait, 50));
      }
    });
  });
}

describe('the open loop floor server', () => {
  it('answers each request once, a head split across reads included, and the generator measures it', async () => {
    const floor = await floorServer(await sparePort());
    try {
      const port = Number(new URL(floor.url).port);
      const received = await exchange(
        port,
        [
          'GET /a HTTP/1.1\r\nHost: x\r\n\r',
          '\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n',
          'GET /c HTTP/1.1\r\n',
          'Host: x\r\n\r\n',
        ],
        3,
      );
      const bodies = received.split('HTTP/1.1 200 OK').slice(1);
      expect(bodies).toHaveLength(3);
      const length = Number(/content-length: (\d+)/.exec(bodies[0]!)?.[1]);
      expect(JSON.parse(bodies[0]!.slice(bodies[0]!.indexOf('\r\n\r\n') + 4)).items).toHaveLength(100);
      expect(bodies[0]!.length - bodies[0]!.indexOf('\r\n\r\n') - 4).toBe(length);

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
      expect(Number.isFinite(run.serverCpuUsPerRequest)).toBe(true);
      expect(run.serverCpuUsPerRequest).toBeGreaterThanOrEqual(0);
    } finally {
      await floor.stop();
    }
  }, 60_000);
});
