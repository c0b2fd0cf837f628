// `pnpm bench:conditional`: what a conditional list saves. One plant-store server (SQLite, pinned to core 0, seeded
// with 200 plants per principal) answers GET /plants?limit=100 to wrk (core 1) in alternating rounds: plain (200, the
// whole page) and with If-None-Match naming the page's current ETag (304, no body). Prints each round and the median
// ratio of requests per second, 304 over 200, taken in the same run.
import { show, spread } from './stats.js';
import { plantStore, sqliteFile } from './targets.js';
import { requireWrk, wrkAgainst } from './wrk.js';

const ROUNDS = Number(process.env.ROUNDS ?? 3);
const SECONDS = Number(process.env.SECONDS ?? 5);
const CONNECTIONS = 20;

requireWrk();
const target = plantStore('plant-store, SQLite', sqliteFile, {}, ['get']);
const server = await target.start(3900);
try {
  const first = await fetch(`${server.url}/plants?limit=100`, { headers: { authorization: `Bearer ${server.token}` } });
  const etag = first.headers.get('etag');
  const bytes = (await first.text()).length;
  if (!etag) throw new Error('the server answered no ETag');
  const check = await fetch(`${server.url}/plants?limit=100`, {
    headers: { authorization: `Bearer ${server.token}`, 'if-none-match': etag },
  });
  if (check.status !== 304) throw new Error(`If-None-Match was answered ${check.status}, not 304`);
  console.log(
    `page: ${bytes} bytes of JSON, ETag ${etag}; ${ROUNDS} rounds of ${SECONDS} s each, ${CONNECTIONS} connections`,
  );
  const ratios: number[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const run = { scenario: 'get' as const, base: 0, seconds: SECONDS, connections: CONNECTIONS };
    const full = await wrkAgainst(server, run);
    const conditional = await wrkAgainst(server, { ...run, headers: [`If-None-Match: ${etag}`] });
    ratios.push(conditional.requestsPerSec / full.requestsPerSec);
    console.log(
      `round ${round}: 200 ${full.requestsPerSec.toFixed(0)} req/s (p50 ${full.p50Ms} ms, p99 ${full.p99Ms} ms); ` +
        `304 ${conditional.requestsPerSec.toFixed(0)} req/s (p50 ${conditional.p50Ms} ms, p99 ${conditional.p99Ms} ms); ` +
        `ratio ${ratios.at(-1)!.toFixed(2)}x`,
    );
  }
  console.log(`median ratio (min-max), requests per second 304 / 200: ${show(spread(ratios), 2)}x`);
} finally {
  await server.stop();
}
