import {
  createAddressPolicy,
  literalAddress,
  parseNetworks,
  type BlockReason,
} from '../../../src/security/address-policy';

const strict = createAddressPolicy();

describe('createAddressPolicy: blocked addresses', () => {
  it.each<[string, BlockReason]>([
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.5', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['169.254.169.254', 'link_local'],
    ['169.254.0.1', 'link_local'],
    ['192.0.0.8', 'reserved'],
    ['192.0.2.1', 'documentation'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['198.18.0.1', 'benchmark'],
    ['168.63.129.16', 'cloud_service'],
    ['198.19.255.255', 'benchmark'],
    ['192.88.99.1', 'reserved'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['fe80::1', 'link_local'],
    ['fe80::1%eth0', 'link_local'],
    ['fec0::1', 'private'],
    ['fc00::1', 'unique_local'],
    ['fd00:ec2::254', 'unique_local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['2001:2::1', 'benchmark'],
    ['2001::1', 'reserved'], // Teredo
    ['64:ff9b:1::1', 'reserved'],
    ['100::1', 'reserved'],
    ['::7f00:1', 'reserved'], // IPv4-compatible, deprecated
    ['4000::1', 'reserved'], // outside 2000::/3
    // IPv4-mapped IPv6, in each spelling, is its IPv4 address
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['0:0:0:0:0:ffff:7f00:1', 'loopback'],
    ['[::ffff:127.0.0.1]', 'loopback'],
    ['::ffff:169.254.169.254', 'link_local'],
    ['::ffff:10.0.0.5', 'private'],
    // NAT64 and 6to4 lead to the IPv4 address they embed
    ['64:ff9b::127.0.0.1', 'loopback'],
    ['64:ff9b::a00:5', 'private'],
    ['2002:7f00:1::', 'loopback'],
    ['2002:a9fe:a9fe::1', 'link_local'],
    // not an address at all
    ['localhost', 'reserved'],
    ['127.1', 'reserved'],
    ['', 'reserved'],
  ])('%s → %s', (address, reason) => {
    expect(strict.check(address)).toEqual({ allowed: false, reason });
  });
});

describe('createAddressPolicy: public addresses', () => {
  it.each([
    ['8.8.8.8', '8.8.8.8'],
    ['1.1.1.1', '1.1.1.1'],
    ['172.32.0.1', '172.32.0.1'], // just past 172.16/12
    ['100.128.0.1', '100.128.0.1'], // just past 100.64/10
    ['192.169.0.1', '192.169.0.1'],
    ['168.63.129.17', '168.63.129.17'], // next to Azure's WireServer
    ['2606:4700:4700::1111', '2606:4700:4700::1111'],
    ['::ffff:8.8.8.8', '8.8.8.8'],
    ['64:ff9b::808:808', '64:ff9b::808:808'],
    ['2002:808:808::1', '2002:808:808::1'],
  ])('%s is allowed (as %s)', (address, canonical) => {
    expect(strict.check(address)).toEqual({ allowed: true, address: canonical });
  });
});

describe('createAddressPolicy: allowed networks', () => {
  const policy = createAddressPolicy({ allowedNetworks: ['127.0.0.0/8', '10.1.0.0/16', 'fd00::/8'] });

  it.each([
    ['127.0.0.1', true],
    ['127.9.9.9', true],
    ['::ffff:127.0.0.1', true], // mapped: the same address
    ['64:ff9b::7f00:1', true], // NAT64 to an allowed IPv4 address
    ['10.1.2.3', true],
    ['10.2.0.1', false],
    ['fd00:ec2::254', true],
    ['fc00::1', false],
    ['::1', false], // IPv6 loopback is not in 127.0.0.0/8
    ['169.254.169.254', false],
  ])('%s allowed: %s', (address, allowed) => {
    expect(policy.check(address).allowed).toBe(allowed);
  });

  it('normalises the networks it was given', () => {
    expect(
      createAddressPolicy({ allowedNetworks: ['127.0.0.1/8', '::ffff:10.0.0.0/104', '192.0.2.7'] })
        .allowedNetworks,
    ).toEqual(['127.0.0.1/8', '10.0.0.0/8', '192.0.2.7/32']);
  });
});

describe('parseNetworks', () => {
  it.each([
    ['', []],
    [' , ', []],
    ['127.0.0.0/8', ['127.0.0.0/8']],
    ['127.0.0.0/8, 10.1.0.0/16', ['127.0.0.0/8', '10.1.0.0/16']],
    ['fd00::/8,::1', ['fd00::/8', '::1/128']],
  ])('%j → %j', (text, networks) => {
    expect(parseNetworks(text)).toEqual({ networks });
  });

  it.each(['localhost', '10.0.0.0/33', 'fd00::/129', '10/8', '10.0.0.0/8/8', '10.0.0.0/x', '::ffff:0:0/80'])(
    'refuses %j',
    (text) => {
      expect(parseNetworks(text)).toEqual({ problem: expect.stringContaining(text) });
    },
  );
});

describe('literalAddress: unusual host spellings, as WHATWG URL parsing normalises them', () => {
  it.each([
    ['http://2130706433/', '127.0.0.1'],
    ['http://0x7f.1/', '127.0.0.1'],
    ['http://0177.0.0.1/', '127.0.0.1'],
    ['http://127.1/', '127.0.0.1'],
    ['http://0x7f000001/', '127.0.0.1'],
    ['http://017700000001/', '127.0.0.1'],
    ['http://127.0.0.1./', '127.0.0.1'],
    ['http://%31%32%37.0.0.1/', '127.0.0.1'],
    ['http://0/', '0.0.0.0'],
    ['http://[::ffff:127.0.0.1]/', '::ffff:7f00:1'],
    ['http://[0:0:0:0:0:ffff:127.0.0.1]/', '::ffff:7f00:1'],
    ['http://[::1]:8080/', '::1'],
    ['http://169.254.169.254/latest/meta-data/', '169.254.169.254'],
    ['http://[fd00:ec2::254]/', 'fd00:ec2::254'],
  ])('%s → %s, blocked', (url, address) => {
    expect(literalAddress(url)).toBe(address);
    expect(strict.check(literalAddress(url)!).allowed).toBe(false);
  });

  it.each([
    'http://localhost:8080/',
    'https://example.com/hook',
    'http://127.0.0.1.nip.io/',
    'http://1.2.3.4.5x/',
  ])('%s names a host: no literal address', (url) => {
    expect(literalAddress(url)).toBeUndefined();
  });
});
