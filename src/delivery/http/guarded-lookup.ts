import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { AddressPolicy, BlockReason } from '../../security/address-policy';

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Every address a host name resolves to, in the resolver's order. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** The system resolver (getaddrinfo: /etc/hosts, then DNS), as Node's own connections use it. */
export const systemResolver: Resolver = (hostname) =>
  dns.promises.lookup(hostname, { all: true, verbatim: true });

export type ResolvedVerdict =
  { allowed: true; addresses: ResolvedAddress[] } | { allowed: false; reason: BlockReason };

/**
 * The verdict on a name from everything it resolved to: refused when ANY address is refused (a
 * name mixing public and internal addresses is how DNS rebinding and probing work; which half a
 * connection would use is not ours to bet on), with the first refused address's reason.
 */
export function checkResolved(policy: AddressPolicy, addresses: ResolvedAddress[]): ResolvedVerdict {
  for (const { address } of addresses) {
    const verdict = policy.check(address);
    if (!verdict.allowed) return { allowed: false, reason: verdict.reason };
  }
  return { allowed: true, addresses };
}

/** Thrown into the connection attempt when the guard refuses a name's addresses: no socket is opened. */
export class BlockedAddressError extends Error {
  readonly code = 'EBLOCKEDADDRESS';
  constructor(readonly reason: BlockReason) {
    super(`the destination resolves to a blocked address (${reason})`);
  }
}

/**
 * A `lookup` for Node's sockets (http.request's `lookup` option, undici's `connect.lookup`): resolves the
 * name once, checks every address, and answers the socket with exactly those checked addresses,
 * so the connection can only go where the check looked; DNS is never asked again between check
 * and connect, so rebinding cannot win. A refusal calls `onBlocked` and fails the lookup: no
 * connection is opened. Node skips `lookup` for IP literals: check those before the request.
 */
export function guardedLookup(options: {
  policy: AddressPolicy;
  resolve: Resolver;
  onBlocked: (reason: BlockReason) => void;
}): LookupFunction {
  const { policy, resolve, onBlocked } = options;
  return (hostname, lookupOptions, callback) => {
    resolve(hostname).then(
      (resolved) => {
        const verdict = checkResolved(policy, resolved);
        if (!verdict.allowed) {
          onBlocked(verdict.reason);
          callback(new BlockedAddressError(verdict.reason), '', 0);
          return;
        }
        // Every address was checked; a family filter (IPv4-only sockets) only narrows the choice.
        const family = lookupOptions.family === 4 || lookupOptions.family === 6 ? lookupOptions.family : 0;
        const usable = verdict.addresses.filter((a) => family === 0 || a.family === family);
        const first = usable[0];
        if (first === undefined) {
          callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
        } else if (lookupOptions.all) {
          callback(null, usable);
        } else {
          callback(null, first.address, first.family);
        }
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  };
}
