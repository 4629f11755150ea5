import { describe, expect, it } from 'vitest';
import { forbiddenAddressReason, ipv6Bytes, isAllowListed } from '../../shared/domain/address-policy.ts';

describe('forbiddenAddressReason', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.10', 'private'],
    ['169.254.169.254', 'metadata'],
    ['100.64.0.1', 'carrier-grade'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fd00:ec2::254', 'unique-local'],
    ['fc12::1', 'unique-local'],
    ['fe80::1%eth0', 'link-local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:a9fe:a9fe', 'metadata'],
    ['::127.0.0.1', 'loopback'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['2002:c0a8:0101::1', 'private'],
    ['2001:db8::1', 'documentation'],
  ])('refuses %s (%s)', (address, reason) => {
    expect(forbiddenAddressReason(address)).toContain(reason);
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '172.32.0.1',
    '2606:4700:4700::1111',
    '::ffff:93.184.216.34',
    '64:ff9b::8.8.8.8',
  ])('allows the public address %s', (address) => {
    expect(forbiddenAddressReason(address)).toBeNull();
  });

  it('refuses what is not an address at all', () => {
    expect(forbiddenAddressReason('localhost')).toContain('not an IP address');
  });
});

describe('ipv6Bytes', () => {
  it('expands :: and embedded dotted quads', () => {
    expect(ipv6Bytes('::1')).toEqual([...Array(15).fill(0), 1]);
    expect(ipv6Bytes('::ffff:1.2.3.4').slice(10)).toEqual([0xff, 0xff, 1, 2, 3, 4]);
    expect(ipv6Bytes('fd00:ec2::254').slice(0, 4)).toEqual([0xfd, 0x00, 0x0e, 0xc2]);
  });
});

describe('isAllowListed', () => {
  it('matches the host as written, with or without a port', () => {
    expect(isAllowListed('127.0.0.1', '8080', ['127.0.0.1'])).toBe(true);
    expect(isAllowListed('127.0.0.1', '8080', ['127.0.0.1:8080'])).toBe(true);
    expect(isAllowListed('127.0.0.1', '9090', ['127.0.0.1:8080'])).toBe(false);
    expect(isAllowListed('localhost', '8080', ['127.0.0.1'])).toBe(false);
    expect(isAllowListed('[::1]', '80', ['::1'])).toBe(true);
    expect(isAllowListed('127.0.0.1', '80', [])).toBe(false);
  });
});
