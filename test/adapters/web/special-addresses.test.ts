/**
 * The SSRF guard against the IANA special-purpose address registries: every entry of the IPv4 and
 * IPv6 "Special-Purpose Address Registry" (iana.org/assignments/iana-ipv4-special-registry and
 * iana-ipv6-special-registry), written out here on 2026-11-25 from the registries as revised up
 * to RFC 9602 (SRv6 SIDs, 5f00::/16) and RFC 9637 (documentation, 3fff::/20). For each block an
 * address inside it is classified; every IPv4 entry is then wrapped in every IPv6 form that
 * carries an IPv4 address and must get the same verdict.
 *
 * `reachable` is the registry's "Globally Reachable" column. The guard refuses every block marked
 * false; where it refuses a block marked true (anycast service addresses inside the IETF protocol
 * blocks, which serve no web pages) the row says so in `note`.
 */
import { describe, expect, it } from 'vitest';
import { blockedRange } from '../../../adapters/web/index.js';

interface RegistryEntry {
  block: string;
  name: string;
  /** Registry's "Globally Reachable": true, false, or 'n/a' for forms judged by what they carry. */
  reachable: boolean | 'n/a';
  /** An address inside the block. */
  sample: string;
  /** The guard's label, or null when the address is let through. */
  expected: string | null;
  note?: string;
}

const IPV4_REGISTRY: RegistryEntry[] = [
  { block: '0.0.0.0/8', name: '"This network"', reachable: false, sample: '0.1.2.3', expected: 'unspecified' },
  { block: '0.0.0.0/32', name: '"This host on this network"', reachable: false, sample: '0.0.0.0', expected: 'unspecified' },
  { block: '10.0.0.0/8', name: 'Private-Use', reachable: false, sample: '10.20.30.40', expected: 'private' },
  { block: '100.64.0.0/10', name: 'Shared Address Space', reachable: false, sample: '100.127.255.254', expected: 'carrier_nat' },
  { block: '127.0.0.0/8', name: 'Loopback', reachable: false, sample: '127.0.0.1', expected: 'loopback' },
  { block: '169.254.0.0/16', name: 'Link Local', reachable: false, sample: '169.254.169.254', expected: 'link_local' },
  { block: '172.16.0.0/12', name: 'Private-Use', reachable: false, sample: '172.31.0.1', expected: 'private' },
  { block: '192.0.0.0/24', name: 'IETF Protocol Assignments', reachable: false, sample: '192.0.0.200', expected: 'reserved' },
  { block: '192.0.0.0/29', name: 'IPv4 Service Continuity Prefix', reachable: false, sample: '192.0.0.1', expected: 'reserved' },
  { block: '192.0.0.8/32', name: 'IPv4 dummy address', reachable: false, sample: '192.0.0.8', expected: 'reserved' },
  {
    block: '192.0.0.9/32',
    name: 'Port Control Protocol Anycast',
    reachable: true,
    sample: '192.0.0.9',
    expected: 'reserved',
    note: 'anycast service address',
  },
  {
    block: '192.0.0.10/32',
    name: 'Traversal Using Relays around NAT Anycast',
    reachable: true,
    sample: '192.0.0.10',
    expected: 'reserved',
    note: 'anycast service address',
  },
  { block: '192.0.0.170/32', name: 'NAT64/DNS64 Discovery', reachable: false, sample: '192.0.0.170', expected: 'reserved' },
  { block: '192.0.0.171/32', name: 'NAT64/DNS64 Discovery', reachable: false, sample: '192.0.0.171', expected: 'reserved' },
  { block: '192.0.2.0/24', name: 'Documentation (TEST-NET-1)', reachable: false, sample: '192.0.2.1', expected: 'documentation' },
  { block: '192.31.196.0/24', name: 'AS112-v4', reachable: true, sample: '192.31.196.1', expected: null },
  { block: '192.52.193.0/24', name: 'AMT', reachable: true, sample: '192.52.193.1', expected: null },
  {
    block: '192.88.99.0/24',
    name: 'Deprecated (6to4 Relay Anycast)',
    reachable: 'n/a',
    sample: '192.88.99.1',
    expected: 'reserved',
    note: 'deprecated',
  },
  { block: '192.168.0.0/16', name: 'Private-Use', reachable: false, sample: '192.168.1.1', expected: 'private' },
  { block: '192.175.48.0/24', name: 'Direct Delegation AS112 Service', reachable: true, sample: '192.175.48.6', expected: null },
  { block: '198.18.0.0/15', name: 'Benchmarking', reachable: false, sample: '198.19.255.1', expected: 'benchmarking' },
  { block: '198.51.100.0/24', name: 'Documentation (TEST-NET-2)', reachable: false, sample: '198.51.100.7', expected: 'documentation' },
  { block: '203.0.113.0/24', name: 'Documentation (TEST-NET-3)', reachable: false, sample: '203.0.113.9', expected: 'documentation' },
  { block: '240.0.0.0/4', name: 'Reserved', reachable: false, sample: '250.1.2.3', expected: 'reserved' },
  { block: '255.255.255.255/32', name: 'Limited Broadcast', reachable: false, sample: '255.255.255.255', expected: 'reserved' },
];

const IPV6_REGISTRY: RegistryEntry[] = [
  { block: '::1/128', name: 'Loopback Address', reachable: false, sample: '::1', expected: 'loopback' },
  { block: '::/128', name: 'Unspecified Address', reachable: false, sample: '::', expected: 'unspecified' },
  {
    block: '::ffff:0:0/96',
    name: 'IPv4-mapped Address',
    reachable: false,
    sample: '::ffff:10.0.0.1',
    expected: 'private',
    note: 'judged by the IPv4 address it carries',
  },
  {
    block: '64:ff9b::/96',
    name: 'IPv4-IPv6 Translat.',
    reachable: true,
    sample: '64:ff9b::a9fe:a9fe',
    expected: 'link_local',
    note: 'judged by the IPv4 address it carries',
  },
  {
    block: '64:ff9b:1::/48',
    name: 'IPv4-IPv6 Translat. (local use)',
    reachable: false,
    sample: '64:ff9b:1:808:8:800::',
    expected: 'nat64_local',
  },
  { block: '100::/64', name: 'Discard-Only Address Block', reachable: false, sample: '100::1', expected: 'reserved' },
  { block: '100:0:0:1::/64', name: 'Dummy IPv6 Prefix', reachable: false, sample: '100:0:0:1::1', expected: 'reserved' },
  { block: '2001::/23', name: 'IETF Protocol Assignments', reachable: false, sample: '2001:1ff::1', expected: 'reserved' },
  {
    block: '2001::/32',
    name: 'TEREDO',
    reachable: 'n/a',
    sample: '2001:0:808:808::f7f7:f7f7',
    expected: 'teredo',
    note: 'refused whatever it carries',
  },
  {
    block: '2001:1::1/128',
    name: 'Port Control Protocol Anycast',
    reachable: true,
    sample: '2001:1::1',
    expected: 'reserved',
    note: 'anycast service address',
  },
  {
    block: '2001:1::2/128',
    name: 'Traversal Using Relays around NAT Anycast',
    reachable: true,
    sample: '2001:1::2',
    expected: 'reserved',
    note: 'anycast service address',
  },
  {
    block: '2001:1::3/128',
    name: 'DNS-SD Service Registration Protocol Anycast',
    reachable: true,
    sample: '2001:1::3',
    expected: 'reserved',
    note: 'anycast service address',
  },
  { block: '2001:2::/48', name: 'Benchmarking', reachable: false, sample: '2001:2::1', expected: 'reserved' },
  { block: '2001:3::/32', name: 'AMT', reachable: true, sample: '2001:3::1', expected: 'reserved', note: 'relay anycast, no web pages' },
  {
    block: '2001:4:112::/48',
    name: 'AS112-v6',
    reachable: true,
    sample: '2001:4:112::1',
    expected: 'reserved',
    note: 'DNS sink, no web pages',
  },
  { block: '2001:10::/28', name: 'Deprecated (previously ORCHID)', reachable: 'n/a', sample: '2001:10::1', expected: 'reserved' },
  {
    block: '2001:20::/28',
    name: 'ORCHIDv2',
    reachable: true,
    sample: '2001:20::1',
    expected: 'reserved',
    note: 'identifiers, not locators',
  },
  {
    block: '2001:30::/28',
    name: 'Drone Remote ID Protocol Entity Tags (DETs) Prefix',
    reachable: true,
    sample: '2001:30::1',
    expected: 'reserved',
    note: 'identifiers, not locators',
  },
  { block: '2001:db8::/32', name: 'Documentation', reachable: false, sample: '2001:db8::1', expected: 'documentation' },
  {
    block: '2002::/16',
    name: '6to4',
    reachable: 'n/a',
    sample: '2002:c0a8:101::1',
    expected: 'private',
    note: 'judged by the IPv4 address it carries',
  },
  { block: '2620:4f:8000::/48', name: 'Direct Delegation AS112 Service', reachable: true, sample: '2620:4f:8000::42', expected: null },
  { block: '3fff::/20', name: 'Documentation', reachable: false, sample: '3fff:fff::1', expected: 'documentation' },
  { block: '5f00::/16', name: 'Segment Routing (SRv6) SIDs', reachable: false, sample: '5f00:1::1', expected: 'reserved' },
  { block: 'fc00::/7', name: 'Unique-Local', reachable: false, sample: 'fd12:3456::1', expected: 'unique_local' },
  { block: 'fe80::/10', name: 'Link-Local Unicast', reachable: false, sample: 'fe80::1%eth0', expected: 'link_local' },
];

const hex = (a: number, b: number): string => ((a << 8) | b).toString(16);
const octets = (v4: string): number[] => v4.split('.').map(Number);

/** Every IPv6 spelling of an IPv4 address the guard knows, and whether the form is refused whatever it carries. */
function embeddings(v4: string): { form: string; address: string; alwaysRefused: boolean }[] {
  const [a, b, c, d] = octets(v4) as [number, number, number, number];
  const low = `${hex(a, b)}:${hex(c, d)}`;
  const teredoClient = `${hex(a ^ 0xff, b ^ 0xff)}:${hex(c ^ 0xff, d ^ 0xff)}`;
  return [
    { form: 'IPv4-mapped ::ffff:0:0/96 (dotted)', address: `::ffff:${v4}`, alwaysRefused: false },
    { form: 'IPv4-mapped ::ffff:0:0/96 (hex)', address: `::ffff:${low}`, alwaysRefused: false },
    { form: 'IPv4-translated ::ffff:0:0:0/96', address: `::ffff:0:${v4}`, alwaysRefused: true },
    { form: 'IPv4-compatible ::/96', address: `::${low}`, alwaysRefused: true },
    { form: 'NAT64 64:ff9b::/96', address: `64:ff9b::${v4}`, alwaysRefused: false },
    { form: 'local NAT64 64:ff9b:1::/48 (/96 prefix)', address: `64:ff9b:1::${low}`, alwaysRefused: true },
    {
      form: 'local NAT64 64:ff9b:1::/48 (/48 prefix)',
      address: `64:ff9b:1:${hex(a, b)}:${c.toString(16)}:${(d << 8).toString(16)}::`,
      alwaysRefused: true,
    },
    { form: '6to4 2002::/16', address: `2002:${low}::1`, alwaysRefused: false },
    { form: 'Teredo 2001::/32 (server)', address: `2001:0:${low}:0:0:f7f7:f7f7`, alwaysRefused: true },
    { form: 'Teredo 2001::/32 (client)', address: `2001:0:808:808:0:0:${teredoClient}`, alwaysRefused: true },
  ];
}

describe('SSRF guard over the IANA special-purpose registries (as of 2026-11-25)', () => {
  it.each(IPV4_REGISTRY)('IPv4 $block $name', (entry) => {
    expect(blockedRange(entry.sample) ?? null).toBe(entry.expected);
    if (entry.reachable === false) expect(entry.expected).not.toBeNull();
  });

  it.each(IPV6_REGISTRY)('IPv6 $block $name', (entry) => {
    expect(blockedRange(entry.sample) ?? null).toBe(entry.expected);
    if (entry.reachable === false) expect(entry.expected).not.toBeNull();
  });

  it.each(IPV4_REGISTRY)('every IPv6 form carrying $block gets its verdict', (entry) => {
    for (const { form, address, alwaysRefused } of embeddings(entry.sample)) {
      const verdict = blockedRange(address);
      if (entry.expected !== null) expect(verdict, `${form} ${address}`).toBeDefined();
      if (!alwaysRefused) expect(verdict ?? null, `${form} ${address}`).toBe(entry.expected);
    }
  });

  it('lets the IPv6 forms through that carry a public IPv4 address and are routed, refuses the others', () => {
    for (const { form, address, alwaysRefused } of embeddings('8.8.8.8')) {
      expect(blockedRange(address) !== undefined, `${form} ${address}`).toBe(alwaysRefused);
    }
  });

  it('refuses the form reported first: ::ffff:0:169.254.169.254 (the URL parser rewrites it to hex)', () => {
    const hostname = new URL('http://[::ffff:0:169.254.169.254]/').hostname.replace(/^\[|\]$/g, '');
    expect(hostname).toBe('::ffff:0:a9fe:a9fe');
    expect(blockedRange(hostname)).toBe('link_local');
  });

  it('lets ordinary public addresses through and refuses what lies outside global unicast', () => {
    for (const address of ['8.8.8.8', '1.1.1.1', '93.184.216.34', '2606:4700::1111', '2a00:1450:4001::200e', '2001:4860:4860::8888']) {
      expect(blockedRange(address), address).toBeUndefined();
    }
    for (const address of ['400::1', '4000::1', 'e000::1', 'fec0::1', 'ff02::1']) expect(blockedRange(address), address).toBeDefined();
  });
});
