// How the connection slots (connection-bound.ts) are shared, so that one address cannot hold them all:
// - each address holds at most its share, max(8, slots / 4): a connection beyond it is closed as soon as it is
//   accepted. An address is an IPv4 address (loopback is an address like any other: 127.0.0.1 and 127.0.0.2 are two)
//   or an IPv6 /64, the block one host usually has. Behind a proxy (TRUST_PROXY) every connection comes from the
//   proxy, so there is no share: the proxy limits its clients.
// - when every slot is taken, a new connection takes the slot of an idle one, from the address that holds the most
//   connections: a silent one (nothing sent yet) first, then one between requests or still sending its headers. Only
//   when every connection is answering a request is the new one closed.
// Every connection closed this way is counted (plant_store_connections_shed_total, by reason) and logged: one line at
// most every LOG_EVERY_MS, saying how many were shed since the last and which address held the most.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export const SHARE_MIN = 8;
const LOG_EVERY_MS = 10_000;

export type ShedReason = 'address_share' | 'idle' | 'full';

/** Connections this process closed to keep the slots shared, by reason (read by /metrics). */
export const connectionSheds: Record<ShedReason, number> = { address_share: 0, idle: 0, full: 0 };

export interface ShedLog {
  warn(details: object, message: string): void;
}

/** One address's share of `slots` connection slots. */
export function addressShare(slots: number): number {
  return Math.max(SHARE_MIN, Math.floor(slots / 4));
}

/** The address a connection counts against: an IPv4 address (IPv4-mapped ones too), or an IPv6 address's /64. */
export function addressKey(address: string): string {
  if (address.startsWith('::ffff:') && address.includes('.')) return address.slice(7);
  if (!address.includes(':')) return address;
  const [head = '', tail = ''] = address.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === '' ? [] : tail.split(':');
  const groups = address.includes('::')
    ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}

/** Whether a connection is answering nothing now (Node sets _httpMessage while a response is under way). */
export function idle(socket: Socket): boolean {
  return (socket as Socket & { _httpMessage?: unknown })._httpMessage == null;
}

/**
 * Shares `slots` connection slots of `server` between addresses (see above); `perAddress` false for no share (behind a
 * proxy). Call before the server listens.
 */
export function shareConnections(server: Server, slots: number, perAddress: boolean, log: ShedLog): void {
  const share = perAddress ? addressShare(slots) : Number.POSITIVE_INFINITY;
  const byAddress = new Map<string, Set<Socket>>();
  let total = 0;
  let unlogged = 0;
  let loggedAt = 0;
  let logTimer: NodeJS.Timeout | undefined;

  const writeLog = () => {
    logTimer = undefined;
    loggedAt = Date.now();
    let busiest = '';
    let most = 0;
    for (const [key, sockets] of byAddress) {
      if (sockets.size > most) {
        busiest = key;
        most = sockets.size;
      }
    }
    log.warn(
      { shed: unlogged, connections: total, slots, share: perAddress ? share : null, busiest, held: most },
      'connections shed: every slot or an address share was taken',
    );
    unlogged = 0;
  };

  const shed = (socket: Socket, reason: ShedReason) => {
    connectionSheds[reason] += 1;
    unlogged += 1;
    socket.destroy();
    if (logTimer !== undefined) return;
    logTimer = setTimeout(writeLog, Math.max(0, loggedAt + LOG_EVERY_MS - Date.now()));
    logTimer.unref();
  };

  /** Stops counting a connection (once, whether it closed or was shed). */
  const release = (key: string, sockets: Set<Socket>, socket: Socket) => {
    if (!sockets.delete(socket)) return;
    total -= 1;
    if (sockets.size === 0 && byAddress.get(key) === sockets) byAddress.delete(key);
  };

  /** Makes room by shedding an idle connection: the busiest address's silent one first, then its idle one. */
  const shedIdle = (): boolean => {
    const addresses = [...byAddress].sort(([, a], [, b]) => b.size - a.size);
    for (const [key, sockets] of addresses) {
      let victim: Socket | undefined;
      for (const socket of sockets) {
        if (!idle(socket)) continue;
        if (socket.bytesRead === 0) {
          victim = socket;
          break;
        }
        victim ??= socket;
      }
      if (victim) {
        release(key, sockets, victim);
        shed(victim, 'idle');
        return true;
      }
    }
    return false;
  };

  server.on('connection', (socket: Socket) => {
    if (socket.remoteAddress === undefined) return;
    const key = addressKey(socket.remoteAddress);
    const sockets = byAddress.get(key) ?? new Set<Socket>();
    if (sockets.size >= share) return shed(socket, 'address_share');
    if (total >= slots && !shedIdle()) return shed(socket, 'full');
    sockets.add(socket);
    byAddress.set(key, sockets);
    total += 1;
    socket.once('close', () => release(key, sockets, socket));
  });
}
