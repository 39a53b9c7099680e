import { describe, expect, it } from 'vitest';
import { blockedRange, isPrivateAddress } from '../../../adapters/web/ip-ranges.js';

describe('blockedRange', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link_local'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
  ])('names the range of %s', (address, label) => {
    expect(blockedRange(address)).toBe(label);
  });

  it.each(['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '2001:4860:4860::8888'])('passes the public address %s', (address) => {
    expect(blockedRange(address)).toBeUndefined();
    expect(isPrivateAddress(address)).toBe(false);
  });

  it('looks inside IPv6 forms that carry an IPv4 address', () => {
    // IPv4-mapped, written both ways, NAT64, 6to4: the carried address decides.
    expect(blockedRange('::ffff:127.0.0.1')).toBe('loopback');
    expect(blockedRange('::ffff:0:169.254.169.254')).toBeDefined();
    expect(blockedRange('64:ff9b::a9fe:a9fe')).toBeDefined();
    expect(blockedRange('2002:c0a8:0101::1')).toBeDefined();
    expect(blockedRange('::ffff:8.8.8.8')).toBeUndefined();
  });

  it('counts what it cannot parse as blocked', () => {
    for (const address of ['', 'localhost', '999.1.1.1', '1.2.3', '::g', '1::2::3']) {
      expect(blockedRange(address), address).toBe('invalid');
      expect(isPrivateAddress(address)).toBe(true);
    }
  });

  it('refuses unique-local, multicast and reserved IPv6 space', () => {
    expect(blockedRange('fd00::1')).toBeDefined();
    expect(blockedRange('ff02::1')).toBeDefined();
    expect(blockedRange('fe80::1')).toBeDefined();
    // Outside 2000::/3 nothing is allocated for the public internet.
    expect(blockedRange('4000::1')).toBe('reserved');
  });
});
