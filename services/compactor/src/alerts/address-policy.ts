/**
 * Which addresses a webhook may be sent to (docs/alerts.md "Addresses", the SSRF guard). Pure.
 * Only public unicast addresses, as ipaddr.js classifies them: loopback, private (RFC 1918), link-local,
 * unique-local IPv6, unspecified, multicast, broadcast, carrier-grade NAT and the reserved and
 * documentation ranges are refused. An IPv4-mapped IPv6 address (::ffff:10.0.0.1) is judged as its IPv4
 * address, and the IPv6 forms that embed an IPv4 address (6to4, Teredo, NAT64) are refused outright,
 * since the address they reach is not the one written.
 */
import ipaddr from 'ipaddr.js';

/** The range ipaddr.js names for an address, or 'invalid'. */
export function addressRange(address: string): string {
  if (!ipaddr.isValid(address)) return 'invalid';
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) parsed = v6.toIPv4Address();
  }
  return parsed.range();
}

/** Whether a webhook may be sent to the address without the operator's permission. */
export const isPublicAddress = (address: string): boolean => addressRange(address) === 'unicast';
