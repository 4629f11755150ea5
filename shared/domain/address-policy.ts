/**
 * Which IP addresses a server-side fetch may connect to (SSRF protection). Pure: the caller
 * resolves names and connects; this only judges addresses. Everything that is not plain public
 * unicast is refused: private, loopback, link-local (the cloud metadata service lives there),
 * unique-local, multicast, reserved and documentation ranges, and IPv6 forms that embed an IPv4
 * address (mapped, compatible, NAT64, 6to4) are judged by the IPv4 address inside.
 */
import { isIPv4, isIPv6 } from 'node:net';

/** Why an address is refused, or null when it is public. */
export type AddressVerdict = string | null;

const IPV4_BLOCKS: Array<[string, number, string]> = [
  ['0.0.0.0', 8, 'unspecified ("this network")'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'shared address space (carrier-grade NAT)'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local (includes the cloud metadata service 169.254.169.254)'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments (includes 192.0.0.192 metadata on some clouds)'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, '6to4 relay anycast'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved (includes broadcast)'],
];

function ipv4ToNumber(address: string): number {
  return address.split('.').reduce((value, part) => value * 256 + Number(part), 0);
}

function ipv4Verdict(address: string): AddressVerdict {
  const value = ipv4ToNumber(address);
  for (const [base, bits, reason] of IPV4_BLOCKS) {
    const size = 2 ** (32 - bits);
    const start = ipv4ToNumber(base);
    if (value >= start && value < start + size) return `${address} is ${reason}`;
  }
  return null;
}

/** The 16 bytes of an IPv6 address (handles `::` and a trailing dotted IPv4 part). */
export function ipv6Bytes(address: string): number[] {
  let text = address.toLowerCase().split('%')[0]!; // a zone id names an interface, not an address
  const tail: number[] = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    tail.push(...dotted[1]!.split('.').map(Number));
    text = `${text.slice(0, -dotted[1]!.length)}0:0`;
  }
  const [head, rest] = text.includes('::') ? text.split('::') : [text, undefined];
  const groups = (part: string | undefined) => (part ? part.split(':').filter((g) => g !== '') : []);
  const left = groups(head);
  const right = groups(rest);
  const missing = rest === undefined ? 0 : 8 - left.length - right.length;
  const all = [...left, ...Array(missing).fill('0'), ...right].map((group) => Number.parseInt(group, 16));
  const bytes = all.flatMap((group) => [group >> 8, group & 0xff]);
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes;
}

function startsWith(bytes: number[], prefix: number[], bits: number): boolean {
  for (let bit = 0; bit < bits; bit++) {
    const byte = bit >> 3;
    const mask = 0x80 >> (bit & 7);
    if ((bytes[byte]! & mask) !== (prefix[byte]! & mask)) return false;
  }
  return true;
}

const ipv4Of = (bytes: number[], offset: number) => bytes.slice(offset, offset + 4).join('.');

function ipv6Verdict(address: string): AddressVerdict {
  const bytes = ipv6Bytes(address);
  const zero = (from: number, to: number) => bytes.slice(from, to).every((b) => b === 0);
  if (zero(0, 16)) return `${address} is unspecified`;
  if (zero(0, 15) && bytes[15] === 1) return `${address} is loopback`;
  // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible), ::ffff:0:a.b.c.d (translated)
  if (zero(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return embedded(address, ipv4Of(bytes, 12));
  if (zero(0, 12)) return embedded(address, ipv4Of(bytes, 12));
  if (zero(0, 8) && bytes[8] === 0xff && bytes[9] === 0xff && zero(10, 12)) return embedded(address, ipv4Of(bytes, 12));
  const prefix = (text: string) => ipv6Bytes(text);
  if (startsWith(bytes, prefix('64:ff9b::'), 96)) return embedded(address, ipv4Of(bytes, 12)); // NAT64
  if (startsWith(bytes, prefix('64:ff9b:1::'), 48)) return `${address} is local-use NAT64`;
  if (startsWith(bytes, prefix('2002::'), 16)) return embedded(address, ipv4Of(bytes, 2)); // 6to4
  if (startsWith(bytes, prefix('fc00::'), 7))
    return `${address} is unique-local (includes the EC2 metadata address fd00:ec2::254)`;
  if (startsWith(bytes, prefix('fe80::'), 10)) return `${address} is link-local`;
  if (startsWith(bytes, prefix('fec0::'), 10)) return `${address} is site-local`;
  if (startsWith(bytes, prefix('ff00::'), 8)) return `${address} is multicast`;
  if (startsWith(bytes, prefix('100::'), 64)) return `${address} is a discard prefix`;
  if (startsWith(bytes, prefix('2001:db8::'), 32)) return `${address} is documentation`;
  if (startsWith(bytes, prefix('2001::'), 23)) return `${address} is IETF protocol assignments (Teredo, ORCHID, ...)`;
  return null;
}

function embedded(address: string, ipv4: string): AddressVerdict {
  const verdict = ipv4Verdict(ipv4);
  return verdict ? `${address} embeds ${verdict}` : null;
}

/** null when a fetch may connect to `address`; otherwise the reason it may not. */
export function forbiddenAddressReason(address: string): AddressVerdict {
  if (isIPv4(address)) return ipv4Verdict(address);
  if (isIPv6(address)) return ipv6Verdict(address);
  return `${address} is not an IP address`;
}

/**
 * Allow-list entries (`host` or `host:port`, e.g. `127.0.0.1` for tests) exempt a URL's host
 * from the address rules. Compared with the URL's host as written, never with what it resolves to.
 */
export function isAllowListed(hostname: string, port: string, allowList: string[]): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return allowList.some((entry) => {
    const normalized = entry.trim().toLowerCase();
    return normalized === host || normalized === `${host}:${port}` || normalized === `[${host}]:${port}`;
  });
}
