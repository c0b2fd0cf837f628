// Which addresses a webhook may be sent to: public unicast only, checked on the addresses DNS returns at delivery
// time (and on IP literals), so a subscription cannot reach the service's own network, loopback or cloud metadata.
import type { LookupAddress, LookupOptions } from 'node:dns';
import { lookup } from 'node:dns';
import { BlockList, isIP } from 'node:net';

// Two lists: Node's BlockList matches IPv4 addresses against IPv4-mapped IPv6 rules, and ::ffff:0:0/96 is refused.
const refusedV4 = new BlockList();
const refusedV6 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata lives here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // network device testing (RFC 2544)
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved and broadcast
] as const) {
  refusedV4.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 96], // unspecified, loopback and IPv4-compatible
  ['::ffff:0:0', 96], // IPv4-mapped: would reach any IPv4 address, private ones included
  ['64:ff9b::', 96], // NAT64, the same
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4, embeds any IPv4 address
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  refusedV6.addSubnet(network, prefix, 'ipv6');
}

/** True for a public unicast address a webhook may be sent to. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return family === 4 ? !refusedV4.check(address, 'ipv4') : !refusedV6.check(address, 'ipv6');
}

export class RefusedAddressError extends Error {
  override name = 'RefusedAddressError';
  readonly code = 'EWEBHOOKADDRESS';
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http.request that resolves as usual and refuses the connection when any address is not public, so
 * the address connected to is the one checked (no second resolution an attacker's DNS could answer differently).
 */
export function publicOnlyLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const bad = addresses.find((entry) => !isPublicAddress(entry.address));
    if (bad || addresses.length === 0) {
      return callback(
        new RefusedAddressError(`${hostname} resolves to ${bad?.address ?? 'nothing'}, which is not a public address`),
        [],
      );
    }
    if (options.all) return callback(null, addresses);
    const first = addresses[0]!;
    callback(null, first.address, first.family);
  });
}
