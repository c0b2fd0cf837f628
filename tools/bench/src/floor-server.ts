// The floor: Node's HTTP stack with nothing on top. A node:http server that answers every request with one answer
// recorded from plant-store (the same body bytes, content-type and other headers), so what plant-store spends beyond
// it is the framework's and its own. targets.ts's floorOf records the answer and starts this.
// Usage: PORT=7420 FLOOR_ANSWER=answer.json tsx tools/bench/src/floor-server.ts (answer.json: floor-answer.ts)
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { parseAnswer } from './floor-answer.js';

const { headers, body } = parseAnswer(readFileSync(process.env.FLOOR_ANSWER ?? '', 'utf8'));
const head = { ...headers, 'content-length': String(body.length) };

createServer((request, response) => {
  request.resume();
  response.writeHead(200, head).end(body);
}).listen(Number(process.env.PORT ?? 7420), '127.0.0.1', () => console.log('floor server listening'));
