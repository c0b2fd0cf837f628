// Test support: a port nothing listens on now, for a child process told where to listen.
import { createServer } from 'node:net';

/** A free loopback port: one the kernel hands out for port 0, closed again before it is returned. */
export async function sparePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * A free loopback port outside the kernel's ephemeral range (32768-60999), for a child that binds it later: a port in
 * that range can be taken by an outgoing connection meanwhile. Bind-tested; never one of `taken`, which it joins.
 */
export async function sparePortOutsideEphemeral(taken = new Set<number>()): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (taken.has(port)) continue;
    const server = createServer();
    const bound = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (!bound) continue;
    await new Promise((resolve) => server.close(resolve));
    taken.add(port);
    return port;
  }
}
