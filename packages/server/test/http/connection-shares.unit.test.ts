// Which address a connection counts against, and how large an address's share of the connection slots is.
import { expect, it } from 'vitest';
import { addressKey, addressShare } from '../../src/http/connection-shares.js';

it('counts IPv4 addresses one by one, loopback included, and IPv4-mapped ones as IPv4', () => {
  expect(addressKey('127.0.0.1')).toBe('127.0.0.1');
  expect(addressKey('127.0.0.2')).toBe('127.0.0.2');
  expect(addressKey('::ffff:10.1.2.3')).toBe('10.1.2.3');
});

it('counts an IPv6 address by its /64', () => {
  expect(addressKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
  expect(addressKey('2001:0db8:0001:0002:ffff:1:2:3')).toBe('2001:db8:1:2::/64');
  expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
  expect(addressKey('::1')).toBe('0:0:0:0::/64');
  expect(addressKey('fe80::1:2:3:4')).toBe('fe80:0:0:0::/64');
});

it('gives an address a quarter of the slots, at least 8', () => {
  expect(addressShare(921)).toBe(230);
  expect(addressShare(192)).toBe(48);
  expect(addressShare(20)).toBe(8);
});
