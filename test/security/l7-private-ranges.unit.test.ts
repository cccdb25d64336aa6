// L7: the safe fetcher judged public some IPv6 forms that route to private space (an embedded IPv4
// address a tunnel or translator delivers to, or a range no public host has) and the 6to4 relay
// anycast. Every such form is refused; public addresses stay public.
import { describe, expect, it } from 'vitest';
import { isPublicAddress } from '../../shared/assets/safe-fetch.js';

const REFUSED: Record<string, string[]> = {
  'IPv4-compatible (::/96)': [
    '::127.0.0.1',
    '::7f00:1',
    '::a00:1',
    '::169.254.169.254',
    '::8.8.8.8',
    '0:0:0:0:0:0:7f00:1',
  ],
  'IPv4-translated (::ffff:0:0:0/96)': [
    '::ffff:0:127.0.0.1',
    '::ffff:0:7f00:1',
    '::ffff:0:a9fe:a9fe',
    '::ffff:0:8.8.8.8',
  ],
  '6to4 (2002::/16)': ['2002:7f00:1::1', '2002:a9fe:a9fe::', '2002:a00:1::1', '2002:808:808::1'],
  'NAT64, local use (64:ff9b:1::/48) and well-known (64:ff9b::/96)': [
    '64:ff9b:1::7f00:1',
    '64:ff9b:1:ffff::a00:1',
    '64:ff9b::7f00:1',
    '64:ff9b::8.8.8.8',
  ],
  'site-local (fec0::/10)': ['fec0::1', 'fec0::7f00:1', 'feff:ffff::1'],
  'Teredo (2001::/32) and the other IETF protocol assignments (2001::/23)': [
    '2001::1',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    '2001:2::1',
    '2001:1ff:ffff::1',
  ],
  '6to4 relay anycast (192.88.99.0/24)': ['192.88.99.1', '192.88.99.255', '::ffff:192.88.99.1', '::ffff:c058:6301'],
  'the forms refused before': [
    '127.0.0.1',
    '10.0.0.1',
    '169.254.169.254',
    '100.64.0.1',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '2001:db8::1',
    '100::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
  ],
  'documentation (3fff::/20) and everything outside global unicast (2000::/3)': [
    '3fff::1',
    '4000::1',
    'e000::1',
    '1::1',
  ],
  'not an address': ['', 'localhost', '1.2.3', '::ffff:1.2.3.4.5', 'fe80::1%eth0'],
};

const PUBLIC = [
  '8.8.8.8',
  '93.184.216.34',
  '192.88.98.1',
  '192.88.100.1',
  '::ffff:8.8.8.8',
  '::ffff:808:808',
  '2606:4700::1111',
  '2001:4860:4860::8888',
  '2001:200::1',
  '2a00:1450:4001:82a::200e',
  '2003::1',
];

describe('which addresses the safe fetcher connects to', () => {
  for (const [form, addresses] of Object.entries(REFUSED)) {
    it(`refuses ${form}`, () => {
      for (const ip of addresses) expect(isPublicAddress(ip), ip).toBe(false);
    });
  }

  it('connects to public IPv4 and global unicast IPv6 addresses, and to IPv4-mapped public ones', () => {
    for (const ip of PUBLIC) expect(isPublicAddress(ip), ip).toBe(true);
  });
});
