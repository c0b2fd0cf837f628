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
