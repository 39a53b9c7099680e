/**
 * IP address classification for the SSRF guard: which addresses a web loader must never reach by
 * default. Own CIDR checks on byte arrays (rather than `net.BlockList`) so IPv4 addresses embedded
 * in IPv6 (mapped, translated, compatible, NAT64, 6to4, Teredo) are unwrapped and checked against
 * the IPv4 ranges. test/adapters/web/ssrf.test.ts walks the IANA special-purpose registries.
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

/** IPv4 blocks refused (first match names the range). */
const IPV4_RANGES: Range[] = [
  range('0.0.0.0/8', 'unspecified'),
  range('10.0.0.0/8', 'private'),
  range('100.64.0.0/10', 'carrier_nat'),
  range('127.0.0.0/8', 'loopback'),
  range('169.254.0.0/16', 'link_local'),
  range('172.16.0.0/12', 'private'),
  // IETF protocol assignments, refused whole: the two anycast addresses in it the registry calls
  // globally reachable (PCP, TURN) serve no web pages.
  range('192.0.0.0/24', 'reserved'),
  range('192.0.2.0/24', 'documentation'),
  range('192.88.99.0/24', 'reserved'), // deprecated 6to4 relay anycast
  range('192.168.0.0/16', 'private'),
  range('198.18.0.0/15', 'benchmarking'),
  range('198.51.100.0/24', 'documentation'),
  range('203.0.113.0/24', 'documentation'),
  range('224.0.0.0/4', 'multicast'),
  range('240.0.0.0/4', 'reserved'), // includes 255.255.255.255 broadcast
];

/**
 * IPv6 blocks refused, checked after the forms that embed IPv4 (`EMBEDDING_FORMS`). Only the
 * global unicast block 2000::/3 is routed on the internet; everything outside it is refused.
 */
const IPV6_RANGES: Range[] = [
  range('fc00::/7', 'unique_local'),
  range('fe80::/10', 'link_local'),
  range('fec0::/10', 'site_local'),
  range('ff00::/8', 'multicast'),
  range('2001:db8::/32', 'documentation'),
  // IETF protocol assignments (benchmarking, ORCHID, AMT, AS112, drone tags...), refused whole: the
  // few blocks in it the registry calls globally reachable serve no web pages.
  range('2001::/23', 'reserved'),
  range('3fff::/20', 'documentation'),
];
const GLOBAL_UNICAST = range('2000::/3', 'global');

function parseIPv4(text: string): number[] | undefined {
  if (!isIPv4(text)) return undefined;
  return text.split('.').map(Number);
}

function parseIPv6(input: string): number[] | undefined {
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

const ZEROS_80 = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0];

/**
 * An IPv6 form that carries an IPv4 address. `always` forms are refused whatever they carry (they
 * are never routed on the internet: the label names the carried address's range when that one is
 * refused too, else the form); the others are as reachable as the IPv4 address they carry.
 */
interface EmbeddingForm {
  label: string;
  always: boolean;
  /** The carried IPv4 addresses (Teredo carries two), or undefined when `bytes` is not this form. */
  carried(bytes: number[]): number[][] | undefined;
}

const EMBEDDING_FORMS: EmbeddingForm[] = [
  // ::ffff:0:0/96, IPv4-mapped: a socket connects to the IPv4 address itself.
  { label: 'ipv4_mapped', always: false, carried: (b) => (startsWith(b, [...ZEROS_80, 0xff, 0xff]) ? [b.slice(12)] : undefined) },
  // ::ffff:0:0:0/96, IPv4-translated (SIIT).
  {
    label: 'ipv4_translated',
    always: true,
    carried: (b) => (startsWith(b, [0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0]) ? [b.slice(12)] : undefined),
  },
  // ::/96, IPv4-compatible (deprecated); :: and ::1 are caught before this.
  { label: 'ipv4_compatible', always: true, carried: (b) => (startsWith(b, [...ZEROS_80, 0, 0]) ? [b.slice(12)] : undefined) },
  // 64:ff9b::/96, well-known NAT64 prefix: the translator connects to the IPv4 address.
  {
    label: 'nat64',
    always: false,
    carried: (b) => (startsWith(b, [0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0]) ? [b.slice(12)] : undefined),
  },
  // 64:ff9b:1::/48, local-use NAT64 (not globally reachable); the address sits at bits 48..87
  // for a /48 prefix (RFC 6052, skipping the zero octet at bits 64..71) or at the end for a /96.
  {
    label: 'nat64_local',
    always: true,
    carried: (b) => {
      if (!startsWith(b, [0, 0x64, 0xff, 0x9b, 0, 1])) return undefined;
      const tail = b.slice(12);
      return [tail.some((byte) => byte !== 0) ? tail : [b[6]!, b[7]!, b[9]!, b[10]!]];
    },
  },
  // 2002::/16, 6to4: the relay reaches the IPv4 address in bits 16..47.
  { label: '6to4', always: false, carried: (b) => (startsWith(b, [0x20, 0x02]) ? [b.slice(2, 6)] : undefined) },
  // 2001::/32, Teredo: server address in bits 32..63, client address inverted in the last 32 bits.
  {
    label: 'teredo',
    always: true,
    carried: (b) => (startsWith(b, [0x20, 0x01, 0, 0]) ? [b.slice(4, 8), b.slice(12).map((byte) => byte ^ 0xff)] : undefined),
  },
];

function ipv4Range(v4: number[]): string | undefined {
  return IPV4_RANGES.find((candidate) => inRange(v4, candidate))?.label;
}

/** The verdict for an IPv6 address that embeds IPv4; undefined when it is no such form. */
function embeddedVerdict(bytes: number[]): { blocked: string | undefined } | undefined {
  for (const form of EMBEDDING_FORMS) {
    const carried = form.carried(bytes);
    if (!carried) continue;
    const inner = carried.map(ipv4Range).find((label) => label !== undefined);
    return { blocked: inner ?? (form.always ? form.label : undefined) };
  }
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
  if (v6.every((byte, index) => byte === (index === 15 ? 1 : 0))) return 'loopback';
  if (v6.every((byte) => byte === 0)) return 'unspecified';
  const embedded = embeddedVerdict(v6);
  if (embedded) return embedded.blocked;
  const listed = IPV6_RANGES.find((candidate) => inRange(v6, candidate))?.label;
  return listed ?? (inRange(v6, GLOBAL_UNICAST) ? undefined : 'reserved');
}

/**
 * A test for one CIDR block (`10.0.0.0/8`, `fd00::/8`) or single address (`127.0.0.1`, `::1`), or
 * undefined when `text` is neither. An IPv4 block also matches the IPv4-mapped IPv6 form.
 */
export function cidrMatcher(text: string): ((address: string) => boolean) | undefined {
  const [address = '', bitsText, ...extra] = text.split('/');
  if (extra.length > 0) return undefined;
  const bytes = parseIPv4(address) ?? parseIPv6(address);
  if (!bytes) return undefined;
  const bits = bitsText === undefined ? bytes.length * 8 : Number(bitsText);
  if (!/^\d+$/.test(bitsText ?? '0') || bits > bytes.length * 8) return undefined;
  const block: Range = { bytes, bits, label: text };
  return (candidate) => {
    const v4 = parseIPv4(candidate);
    if (v4) return inRange(v4, block);
    const v6 = parseIPv6(candidate);
    if (!v6) return false;
    if (inRange(v6, block)) return true;
    return startsWith(v6, [...ZEROS_80, 0xff, 0xff]) && inRange(v6.slice(12), block);
  };
}

/** True when `address` is loopback, private, link-local, unique-local, multicast or otherwise non-public. */
export function isPrivateAddress(address: string): boolean {
  return blockedRange(address) !== undefined;
}
