import { BlockList, isIPv4, isIPv6 } from 'node:net';

// BlockList also matches IPv4-mapped (::ffff:127.0.0.1) and long (0:0:0:0:0:0:0:1) IPv6 spellings.
const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** True for loopback addresses and names: 127.0.0.0/8, ::1 (also bracketed or IPv4-mapped), localhost. */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost' || h === 'localhost.') return true;
  if (isIPv4(h)) return loopback.check(h, 'ipv4');
  if (isIPv6(h)) return loopback.check(h, 'ipv6');
  return false;
}
