// The open loop's floor: a server that does nothing but answer. Over node:net, no HTTP parser and no framework, it
// answers every request (each blank line that ends a head; the generator's and wrk's GETs have no body) with the
// same bytes (a 100-plant page of JSON, near the size of plant-store's hot read), so what the kernel and the event
// loop charge for a request and its wake-ups is all it spends. open-loop-floor.ts runs it.
// Usage: PORT=7420 tsx tools/bench/src/floor-server.ts
import { createServer } from 'node:net';

const page = Array.from({ length: 100 }, (_, i) => ({ id: i + 1, name: `plant number ${i + 1}`, tag: `tag${i + 1}` }));
const body = Buffer.from(JSON.stringify({ items: page, next: null }));
const answer = Buffer.concat([
  Buffer.from(
    `HTTP/1.1 200 OK\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${body.length}\r\n\r\n`,
  ),
  body,
]);
const END = Buffer.from('\r\n\r\n');

createServer((socket) => {
  socket.setNoDelay(true);
  socket.on('error', () => socket.destroy());
  // A head's end may be split between two reads: the last three bytes of each read are kept for the next.
  let tail = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    const bytes = tail.length === 0 ? chunk : Buffer.concat([tail, chunk]);
    let answers = 0;
    for (let at = bytes.indexOf(END); at !== -1; at = bytes.indexOf(END, at + END.length)) answers++;
    const lastEnd = bytes.lastIndexOf(END);
    const rest = lastEnd === -1 ? bytes : bytes.subarray(lastEnd + END.length);
    tail = Buffer.from(rest.subarray(Math.max(0, rest.length - 3)));
    if (answers > 0) socket.write(answers === 1 ? answer : Buffer.concat(Array(answers).fill(answer)));
  });
}).listen(Number(process.env.PORT ?? 7420), '127.0.0.1', () => console.log('floor server listening'));
