import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Network = [Address, number];

/** Why an address is refused as a webhook destination. */
export type BlockReason =
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'cgnat'
  | 'link_local'
  | 'unique_local'
  | 'multicast'
  | 'broadcast'
  | 'documentation'
  | 'benchmark'
  | 'cloud_service'
  | 'reserved';

export type AddressVerdict =
  | { allowed: true; /** Canonical text of the address (IPv4-mapped IPv6 as IPv4). */ address: string }
  | { allowed: false; reason: BlockReason };

/**
 * IPv4 networks that are not the public Internet. Order matters where ranges nest: the first match
 * names the reason (255.255.255.255 is `broadcast`, not `reserved`).
 */
const IPV4_BLOCKED: readonly [string, BlockReason][] = [
  ['0.0.0.0/8', 'unspecified'], // "this network" (RFC 1122); 0.0.0.0 reaches the local host
  ['127.0.0.0/8', 'loopback'],
  ['10.0.0.0/8', 'private'], // RFC 1918
  ['172.16.0.0/12', 'private'],
  ['192.168.0.0/16', 'private'],
  ['100.64.0.0/10', 'cgnat'], // RFC 6598
  ['169.254.0.0/16', 'link_local'], // RFC 3927; 169.254.169.254 is the cloud metadata service
  // A public address every Azure VM reaches: Azure's WireServer (the VM agent's host channel, DNS,
  // DHCP). Not the Internet's: no webhook receiver lives there.
  ['168.63.129.16/32', 'cloud_service'],
  ['192.0.0.0/24', 'reserved'], // IETF protocol assignments (RFC 6890)
  ['192.0.2.0/24', 'documentation'], // TEST-NET-1..3 (RFC 5737)
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['198.18.0.0/15', 'benchmark'], // RFC 2544
  ['192.88.99.0/24', 'reserved'], // 6to4 relay anycast, deprecated (RFC 7526)
  ['224.0.0.0/4', 'multicast'],
  ['255.255.255.255/32', 'broadcast'],
  ['240.0.0.0/4', 'reserved'], // RFC 1112 "future use"
];

/** IPv6 networks that are not the public Internet (first match names the reason). */
const IPV6_BLOCKED: readonly [string, BlockReason][] = [
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['fe80::/10', 'link_local'],
  ['fec0::/10', 'private'], // site-local, deprecated (RFC 3879)
  ['fc00::/7', 'unique_local'], // RFC 4193; includes fd00:ec2::254, the EC2 metadata service
  ['ff00::/8', 'multicast'],
  ['2001:db8::/32', 'documentation'], // RFC 3849
  ['3fff::/20', 'documentation'], // RFC 9637
  ['2001:2::/48', 'benchmark'], // RFC 5180
  ['2001::/23', 'reserved'], // IETF protocol assignments: Teredo, ORCHID, ... (RFC 6890)
  ['64:ff9b:1::/48', 'reserved'], // local-use IPv4/IPv6 translation (RFC 8215)
  ['100::/64', 'reserved'], // discard-only (RFC 6666)
];

/** Only 2000::/3 is allocated as global unicast; the rest of the IPv6 space is reserved. */
const IPV6_GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');
/** IPv6 forms that carry an IPv4 address the traffic ends up at, checked as that IPv4 address. */
const NAT64 = ipaddr.parseCIDR('64:ff9b::/96'); // RFC 6052: last 32 bits
const SIX_TO_FOUR = ipaddr.parseCIDR('2002::/16'); // RFC 3056: bits 16-47

const parsedTable = (table: readonly [string, BlockReason][]) =>
  table.map(([cidr, reason]) => [ipaddr.parseCIDR(cidr), reason] as const);
const IPV4_TABLE = parsedTable(IPV4_BLOCKED);
const IPV6_TABLE = parsedTable(IPV6_BLOCKED);

export interface AddressPolicy {
  /**
   * The verdict on one IP address, as DNS answers it or as a URL carries it. Text that is not an
   * IP address is refused as `reserved` (callers pass addresses, never names).
   */
  check(address: string): AddressVerdict;
  /** The networks allowed despite the rules, normalised (`127.0.0.0/8`). */
  readonly allowedNetworks: readonly string[];
}

export interface AddressPolicyOptions {
  /** CIDRs allowed despite the rules (HOOKLINE_ALLOWED_NETWORKS); see `parseNetworks`. Default none. */
  allowedNetworks?: readonly string[];
}

/**
 * The SSRF address policy: an address is refused when it is loopback, private (RFC 1918), CGNAT,
 * link-local, unique-local, multicast, unspecified, broadcast, documentation, benchmark or
 * otherwise reserved, unless it lies in one of the allowed networks. IPv4-mapped IPv6 addresses
 * (`::ffff:127.0.0.1`) are the IPv4 address they map; NAT64 (`64:ff9b::/96`) and 6to4
 * (`2002::/16`) addresses are refused when the IPv4 address they embed is.
 */
export function createAddressPolicy(options: AddressPolicyOptions = {}): AddressPolicy {
  const allowed = (options.allowedNetworks ?? []).map(parseNetwork);
  const isAllowed = (address: Address) => allowed.some((network) => inNetwork(address, network));

  function verdictOf(address: Address): AddressVerdict {
    if (isAllowed(address)) return { allowed: true, address: address.toString() };
    const reason = blockReason(address, isAllowed);
    return reason === undefined ? { allowed: true, address: address.toString() } : { allowed: false, reason };
  }

  return {
    allowedNetworks: allowed.map(([address, bits]) => `${address.toString()}/${bits}`),
    check(text) {
      const address = parseAddress(text);
      return address === undefined ? { allowed: false, reason: 'reserved' } : verdictOf(address);
    },
  };
}

function blockReason(address: Address, isAllowed: (a: Address) => boolean): BlockReason | undefined {
  if (address.kind() === 'ipv4') return IPV4_TABLE.find(([network]) => inNetwork(address, network))?.[1];
  const embedded = embeddedIPv4(address as ipaddr.IPv6);
  if (embedded !== undefined) return isAllowed(embedded) ? undefined : blockReason(embedded, isAllowed);
  const listed = IPV6_TABLE.find(([network]) => inNetwork(address, network))?.[1];
  if (listed !== undefined) return listed;
  return inNetwork(address, IPV6_GLOBAL_UNICAST) ? undefined : 'reserved';
}

/** The IPv4 address a NAT64 or 6to4 address leads to. */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const bytes = address.toByteArray();
  if (inNetwork(address, NAT64)) return new ipaddr.IPv4(bytes.slice(12, 16));
  if (inNetwork(address, SIX_TO_FOUR)) return new ipaddr.IPv4(bytes.slice(2, 6));
  return undefined;
}

function inNetwork(address: Address, [base, bits]: Network): boolean {
  return address.kind() === base.kind() && address.match(base, bits);
}

/**
 * An IP address from text: dotted-quad IPv4 or IPv6 (brackets and zone ids tolerated), with
 * IPv4-mapped IPv6 turned into its IPv4 address. Undefined for anything else: the loose IPv4 forms
 * (`127.1`, `0x7f.1`) are a URL parser's business (see `literalAddress`), not an address's.
 */
export function parseAddress(text: string): Address | undefined {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (ipaddr.IPv4.isValidFourPartDecimal(bare)) return ipaddr.IPv4.parse(bare);
  if (!ipaddr.IPv6.isValid(bare)) return undefined;
  const v6 = ipaddr.IPv6.parse(bare);
  return v6.isIPv4MappedAddress() ? v6.toIPv4Address() : v6;
}

/**
 * A network from `10.0.0.0/8`, `fd00::/8` or a bare address (one host). IPv4-mapped IPv6
 * networks (`::ffff:10.0.0.0/104`) become the IPv4 network. Throws on anything else.
 */
function parseNetwork(text: string): Network {
  const [addressText, bitsText, ...rest] = text.trim().split('/');
  const address = parseAddress(addressText ?? '');
  const mappedV6 = address?.kind() === 'ipv4' && addressText!.includes(':');
  const maxBits = address?.kind() === 'ipv4' && !mappedV6 ? 32 : 128;
  const bits = bitsText === undefined ? maxBits : Number(bitsText);
  if (address === undefined || rest.length > 0 || !/^\d{1,3}$/.test(bitsText ?? '0') || bits > maxBits) {
    throw new Error(`expected a CIDR such as 10.0.0.0/8 or fd00::/8, got '${text.trim()}'`);
  }
  if (!mappedV6) return [address, bits];
  if (bits < 96) throw new Error(`an IPv4-mapped network needs a prefix of 96 or more, got '${text.trim()}'`);
  return [address, bits - 96];
}

/**
 * Parses HOOKLINE_ALLOWED_NETWORKS: comma-separated CIDRs; blank = none. Returns the problem
 * instead of throwing, for config validation.
 */
export function parseNetworks(text: string): { networks: string[] } | { problem: string } {
  const parts = text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  try {
    return { networks: createAddressPolicy({ allowedNetworks: parts }).allowedNetworks.slice() };
  } catch (err) {
    return { problem: (err as Error).message };
  }
}

/**
 * The IP address a URL names literally, or undefined when its host is a name (checked only once
 * resolved). WHATWG URL parsing already turns every IPv4 spelling into dotted-quad
 * (`2130706433`, `0x7f.1`, `0177.0.0.1`, `127.1` → `127.0.0.1`) and compresses IPv6
 * (`[::ffff:127.0.0.1]` → `[::ffff:7f00:1]`), so only those two forms remain to recognise.
 */
export function literalAddress(url: string | URL): string | undefined {
  const { hostname } = typeof url === 'string' ? new URL(url) : url;
  if (hostname.startsWith('[')) return hostname.slice(1, -1);
  return ipaddr.IPv4.isValidFourPartDecimal(hostname) ? hostname : undefined;
}

/** Human words for a reason, for answers to the user who typed the URL. */
export const BLOCK_REASON_TEXT: Readonly<Record<BlockReason, string>> = {
  unspecified: 'an unspecified address',
  loopback: 'a loopback address',
  private: 'a private-network address',
  cgnat: 'a carrier-grade NAT address',
  link_local: 'a link-local address (such as a cloud metadata service)',
  unique_local: 'a unique-local IPv6 address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  documentation: 'a documentation-only address',
  benchmark: 'a benchmarking address',
  cloud_service: 'a cloud platform’s own service address (Azure’s WireServer)',
  reserved: 'a reserved address',
};
