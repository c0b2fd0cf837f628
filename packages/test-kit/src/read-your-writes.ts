// Test support: read-your-writes probed as an outside client meets it. Each probe creates a plant through one server,
// lists through another, deletes it, lists again, every request on a new connection (so `serve --workers` hands it
// to whichever worker is next), while a background load keeps every process's caches warm and busy.
import { type IncomingHttpHeaders, request } from 'node:http';

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One request on a connection of its own (no keep-alive agent). */
export function sendOnce(url: string, token: string, method = 'GET', body?: unknown): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      url,
      {
        method,
        agent: false,
        headers: {
          authorization: `Bearer ${token}`,
          connection: 'close',
          ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const listed = (answer: Answer, name: string) =>
  answer.status === 200 && (JSON.parse(answer.body) as { name: string }[]).some((plant) => plant.name === name);

/**
 * Runs `probes` create-then-list and delete-then-list probes of `token`'s plants (ids from `firstId`) across `servers`
 * (base URLs, taken in turn); returns what went wrong: a write not answered 2xx, or a list that missed it.
 */
export async function probeReadYourWrites(
  servers: readonly string[],
  token: string,
  { probes, firstId = 1 }: { probes: number; firstId?: number },
): Promise<string[]> {
  const stale: string[] = [];
  for (let i = 0; i < probes; i++) {
    const id = firstId + i;
    const name = `probe ${id}`;
    const writer = servers[i % servers.length]!;
    const reader = servers[(i + 1) % servers.length]!;
    const created = await sendOnce(`${writer}/plants`, token, 'POST', { id, name });
    if (created.status !== 200) stale.push(`create ${id}: ${created.status} ${created.body}`);
    else if (!listed(await sendOnce(`${reader}/plants?limit=1000`, token), name)) stale.push(`create ${id} not listed`);
    const deleted = await sendOnce(`${reader}/plants/${id}`, token, 'DELETE');
    if (deleted.status !== 204) stale.push(`delete ${id}: ${deleted.status} ${deleted.body}`);
    else if (listed(await sendOnce(`${writer}/plants?limit=1000`, token), name))
      stale.push(`delete ${id} still listed`);
  }
  return stale;
}

/**
 * Keeps `connections` loops of lists of `token`'s first page running against `servers` until the returned function
 * is called (it resolves once they stopped): every process answers that page from its cache, under load.
 */
export function backgroundLists(servers: readonly string[], token: string, connections = 4): () => Promise<void> {
  let running = true;
  const loops = Array.from({ length: connections }, async (_, n) => {
    const url = `${servers[n % servers.length]}/plants?limit=1000`;
    while (running) {
      const answer = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
      await answer.arrayBuffer();
    }
  });
  return async () => {
    running = false;
    await Promise.all(loops);
  };
}
