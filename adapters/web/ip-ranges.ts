/**
 * IP address classification for the SSRF guard: which addresses a web loader must never reach by
 * default. Own CIDR checks on byte arrays (rather than `net.BlockList`) so IPv4 addresses embedded
 * in IPv6 (mapped `::ffff:a.b.c.d`, NAT64, 6to4) are unwrapped and checked against the IPv4 ranges.
 */
import { isIPv4, isIPv6 } from 'node:net';

interface Range {
  bytes: number[];
  bits: number;
  label: string;
}

function range(cidr: string, label: string): Range {
  const [address = '', bits = '0'] = cidr.split('/');
  const bytes = parseIPv4(address) ?? parseIPv6(address);
  if (!bytes) throw new Error(`bad range ${cidr}`);
  return { bytes, bits: Number(bits), label };
}

const IPV4_RANGES: Range[] = [
  range('0.0.0.0/8', 'unspecified'),
  range('10.0.0.0/8', 'private'),
  range('100.64.0.0/10', 'carrier_nat'),
  range('127.0.0.0/8', 'loopback'),
  range('169.254.0.0/16', 'link_local'),
  range('172.16.0.0/12', 'private'),
  range('192.0.0.0/24', 'reserved'),
  range('192.0.2.0/24', 'documentation'),
  range('192.168.0.0/16', 'private'),
  range('198.18.0.0/15', 'benchmarking'),
  range('198.51.100.0/24', 'documentation'),
  range('203.0.113.0/24', 'documentation'),
  range('224.0.0.0/4', 'multicast'),
  range('240.0.0.0/4', 'reserved'), // includes 255.255.255.255 broadcast
];

const IPV6_RANGES: Range[] = [
  range('::1/128', 'loopback'),
  range('::/96', 'unspecified'), // ::, ::1 and the deprecated IPv4-compatible block
  range('64:ff9b:1::/48', 'private'),
  range('100::/64', 'reserved'),
  range('2001::/32', 'reserved'), // Teredo tunnels can reach arbitrary IPv4 hosts
  range('2001:db8::/32', 'documentation'),
  range('fc00::/7', 'unique_local'),
  range('fe80::/10', 'link_local'),
  range('fec0::/10', 'site_local'),
  range('ff00::/8', 'multicast'),
];

export function parseIPv4(text: string): number[] | undefined {
  if (!isIPv4(text)) return undefined;
  return text.split('.').map(Number);
}

export function parseIPv6(input: string): number[] | undefined {
  let text = input.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!isIPv6(text)) return undefined;
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = parseIPv4(dotted[2] ?? '');
    if (!v4) return undefined;
    text = `${dotted[1]}${((v4[0]! << 8) | v4[1]!).toString(16)}:${((v4[2]! << 8) | v4[3]!).toString(16)}`;
  }
  let groups: string[];
  if (text.includes('::')) {
    const [headText = '', restText = ''] = text.split('::');
    const head = headText ? headText.split(':') : [];
    const rest = restText ? restText.split(':') : [];
    groups = [...head, ...Array<string>(8 - head.length - rest.length).fill('0'), ...rest];
  } else {
    groups = text.split(':');
  }
  const words = groups.map((group) => parseInt(group, 16));
  if (words.length !== 8 || words.some((word) => Number.isNaN(word))) return undefined;
  return words.flatMap((word) => [word >> 8, word & 0xff]);
}

function inRange(bytes: number[], candidate: Range): boolean {
  if (bytes.length !== candidate.bytes.length) return false;
  let bits = candidate.bits;
  for (let index = 0; bits > 0; index++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((bytes[index]! & mask) !== (candidate.bytes[index]! & mask)) return false;
  }
  return true;
}

function startsWith(bytes: number[], prefix: number[]): boolean {
  return prefix.every((value, index) => bytes[index] === value);
}

/** The IPv4 address carried inside an IPv6 one (mapped, NAT64 or 6to4), if any. */
function embeddedIPv4(bytes: number[]): number[] | undefined {
  if (startsWith(bytes, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff])) return bytes.slice(12);
  if (startsWith(bytes, [0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0])) return bytes.slice(12);
  if (startsWith(bytes, [0x20, 0x02])) return bytes.slice(2, 6);
  return undefined;
}

/**
 * The name of the blocked range `address` falls in (`loopback`, `private`, `link_local`, ...), or
 * `undefined` for a public address. Unparseable input counts as blocked (`invalid`).
 */
export function blockedRange(address: string): string | undefined {
  const v4 = parseIPv4(address);
  if (v4) return IPV4_RANGES.find((candidate) => inRange(v4, candidate))?.label;
  const v6 = parseIPv6(address);
  if (!v6) return 'invalid';
  const inner = embeddedIPv4(v6);
  if (inner) return IPV4_RANGES.find((candidate) => inRange(inner, candidate))?.label;
  return IPV6_RANGES.find((candidate) => inRange(v6, candidate))?.label;
}

/** True when `address` is loopback, private, link-local, unique-local, multicast or otherwise non-public. */
export function isPrivateAddress(address: string): boolean {
  return blockedRange(address) !== undefined;
}
