// A call to a port nobody listens on: the error's message names the code and the address ("connect ECONNREFUSED
// 127.0.0.1:PORT"), which Node's fetch keeps two causes down under "fetch failed".
import { createServer } from 'node:net';
import { expect, it } from 'vitest';
import { createPlantStoreClient, PlantStoreConnectionError } from '../src/index.js';

/** A loopback port that was free a moment ago and is closed now. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

it('says "connect ECONNREFUSED 127.0.0.1:<port>" for a refused connection', async () => {
  const port = await closedPort();
  const api = createPlantStoreClient({ baseUrl: `http://127.0.0.1:${port}`, token: 't', retry: { maxRetries: 0 } });
  const error = await api.plants.list().catch((e: unknown) => e);
  expect(error).toBeInstanceOf(PlantStoreConnectionError);
  expect((error as Error).message).toBe(
    `could not reach the Plant Store service: connect ECONNREFUSED 127.0.0.1:${port}`,
  );
});
