// Why this exists: when the listener closes, Node closes every "idle" connection at once, and a connection whose
// request the kernel has accepted but Node has not read yet counts as idle: its client would see a reset instead of
// an answer. The guard holds Node's idle sweep back briefly, so such connections can deliver their request (answered
// with Connection: close), and then closes whatever is still idle, again and again until the server has closed.
// close-with-grace and Fastify's close have no such grace period; SIGTERM under load is tested in
// shutdown-under-load.system.test.ts.
import type { Server } from 'node:http';

/** How long connections accepted just before the close get to deliver their request. */
const GRACE_MS = 500;
/** How often idle connections are closed after the grace period. */
const SWEEP_MS = 100;

/** Call before closing the server: delays Node's idle-connection sweep by GRACE_MS, then sweeps every SWEEP_MS. */
export function guardIdleConnections(server: Server): void {
  const closeIdle = server.closeIdleConnections.bind(server);
  server.closeIdleConnections = () => {};
  setTimeout(() => {
    closeIdle();
    setInterval(closeIdle, SWEEP_MS).unref();
  }, GRACE_MS).unref();
}
