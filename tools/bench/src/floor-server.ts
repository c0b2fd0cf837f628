// The floor: Node's HTTP stack with nothing on top. A node:http server that answers every request with one answer
// recorded from plant-store (the same body bytes, content-type and other headers), so what plant-store spends beyond
// it is the framework's and its own. targets.ts's floorOf records the answer to a file and starts this.
// Usage: PORT=7420 FLOOR_ANSWER=answer.json node tools/bench/src/floor-server.ts (answer.json: floor-answer.ts), or
// PORT=7420 FLOOR_FROM=http://127.0.0.1:3000/plants?limit=100 FLOOR_AUTHORIZATION='Bearer ...' node ... to record it.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { keepTickShapes } from '@plant-store/server/tick-shapes';
import { parseAnswer, recordAnswer } from './floor-answer.ts';

// As plant-store's bin does, so the yardstick is never the slower for V8's megamorphic nextTick (tick-shapes.js).
keepTickShapes();

const { FLOOR_ANSWER, FLOOR_FROM, FLOOR_AUTHORIZATION } = process.env;
const { headers, body } = FLOOR_ANSWER
  ? parseAnswer(readFileSync(FLOOR_ANSWER, 'utf8'))
  : await recordAnswer(FLOOR_FROM ?? '', FLOOR_AUTHORIZATION ? { authorization: FLOOR_AUTHORIZATION } : {});
const head = { ...headers, 'content-length': String(body.length) };

createServer((request, response) => {
  request.resume();
  response.writeHead(200, head).end(body);
}).listen(Number(process.env.PORT ?? 7420), '127.0.0.1', () => console.log('floor server listening'));
