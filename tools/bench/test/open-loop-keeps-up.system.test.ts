// The open loop's achieved rate counts answers over the time they took to come, so a server that answers the window's
// requests only seconds after it (within the generator's deadline) reads as not keeping up with the rate, and is no
// yardstick for an open-loop ratio (src/side-by-side.ts, openRatio).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, it } from 'vitest';
import { openLoop } from '../src/open-loop.js';
import { KEEPS_UP } from '../src/side-by-side.js';

it('reads a server that answers at most 200 requests a second as not keeping up with 400 a second', async () => {
  // One answer every 5 ms at most, whatever the number of connections: 400 requests take 2 s or more (the
  // generator waits 10 s for the last answers, so a machine four times slower still answers all of them).
  const waiting: (() => void)[] = [];
  let busy = false;
  const next = () => {
    const answer = waiting.shift();
    if (!answer) {
      busy = false;
      return;
    }
    busy = true;
    setTimeout(() => {
      answer();
      next();
    }, 5);
  };
  const server = createServer((request, response) => {
    request.resume();
    waiting.push(() => response.writeHead(200, { 'content-type': 'application/json' }).end('[]'));
    if (!busy) next();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const run = await openLoop({
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      rate: 400,
      seconds: 1,
      kind: 'get',
      tokens: ['t'],
      base: 0,
      serverPid: process.pid,
    });
    expect(run.answered).toBe(400);
    expect(run.achievedRate).toBeLessThan(KEEPS_UP * 400);
  } finally {
    server.close();
    server.closeAllConnections();
  }
}, 60_000);
