import type { LookupAddress } from 'node:dns';
import {
  BlockedAddressError,
  checkResolved,
  guardedLookup,
  type ResolvedAddress,
} from '../../../../src/delivery/http/guarded-lookup';
import { createAddressPolicy, type BlockReason } from '../../../../src/security/address-policy';

const strict = createAddressPolicy();
const v4 = (address: string): ResolvedAddress => ({ address, family: 4 });
const v6 = (address: string): ResolvedAddress => ({ address, family: 6 });

describe('checkResolved: every address a name resolves to must pass', () => {
  it.each<[string, ResolvedAddress[], BlockReason | undefined]>([
    ['one public address', [v4('93.184.216.34')], undefined],
    ['public IPv4 and IPv6', [v6('2606:2800:220:1::1'), v4('93.184.216.34')], undefined],
    ['loopback', [v4('127.0.0.1')], 'loopback'],
    ['public first, then private', [v4('93.184.216.34'), v4('10.0.0.5')], 'private'],
    ['private first, then public', [v4('192.168.1.1'), v4('93.184.216.34')], 'private'],
    ['public, then the metadata service', [v4('8.8.8.8'), v4('169.254.169.254')], 'link_local'],
    ['IPv4-mapped loopback', [v6('::ffff:127.0.0.1')], 'loopback'],
    ['IPv6 loopback beside public IPv4', [v4('8.8.8.8'), v6('::1')], 'loopback'],
  ])('%s', (_name, addresses, reason) => {
    expect(checkResolved(strict, addresses)).toEqual(
      reason === undefined ? { allowed: true, addresses } : { allowed: false, reason },
    );
  });
});

/** Calls the lookup as Node's socket would, and returns what it answered. */
function lookupOnce(
  lookup: ReturnType<typeof guardedLookup>,
  options: { all?: boolean; family?: number } = {},
): Promise<{ err: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number }> {
  return new Promise((resolve) =>
    lookup('hooks.example', options, (err, address, family) => resolve({ err, address, family })),
  );
}

describe('guardedLookup', () => {
  const allowLoopback = createAddressPolicy({ allowedNetworks: ['127.0.0.0/8'] });

  it('answers with exactly the checked addresses, resolving once per connection', async () => {
    const answers = [[v4('127.0.0.1')], [v4('10.0.0.5')]];
    const resolve = jest.fn(async () => answers.shift()!);
    const onBlocked = jest.fn();
    const lookup = guardedLookup({ policy: allowLoopback, resolve, onBlocked });

    expect(await lookupOnce(lookup)).toEqual({ err: null, address: '127.0.0.1', family: 4 });
    expect(resolve).toHaveBeenCalledTimes(1);
    expect(onBlocked).not.toHaveBeenCalled();

    // The name now rebinds to an internal address: the next connection is refused.
    const second = await lookupOnce(lookup);
    expect(second.err).toBeInstanceOf(BlockedAddressError);
    expect(onBlocked).toHaveBeenCalledWith('private');
  });

  it('refuses a name when any of its addresses is blocked, whatever their order', async () => {
    const onBlocked = jest.fn();
    const lookup = guardedLookup({
      policy: allowLoopback,
      resolve: async () => [v4('127.0.0.1'), v4('169.254.169.254')],
      onBlocked,
    });
    const answer = await lookupOnce(lookup, { all: true });
    expect(answer.err).toBeInstanceOf(BlockedAddressError);
    expect(answer.err?.code).toBe('EBLOCKEDADDRESS');
    expect(onBlocked).toHaveBeenCalledWith('link_local');
  });

  it('answers `all` lookups (happy eyeballs) with every checked address, and honours a family', async () => {
    const addresses = [v6('2606:2800:220:1::1'), v4('93.184.216.34')];
    const lookup = guardedLookup({ policy: strict, resolve: async () => addresses, onBlocked: jest.fn() });
    expect(await lookupOnce(lookup, { all: true })).toEqual({
      err: null,
      address: addresses,
      family: undefined,
    });
    expect(await lookupOnce(lookup, { family: 4 })).toEqual({
      err: null,
      address: '93.184.216.34',
      family: 4,
    });
    expect(await lookupOnce(lookup, { all: true, family: 6 })).toEqual({
      err: null,
      address: [addresses[0]],
      family: undefined,
    });
  });

  it('passes resolver failures through as they are (ENOTFOUND stays a connection failure)', async () => {
    const failure = Object.assign(new Error('getaddrinfo ENOTFOUND hooks.example'), { code: 'ENOTFOUND' });
    const onBlocked = jest.fn();
    const lookup = guardedLookup({ policy: strict, resolve: () => Promise.reject(failure), onBlocked });
    expect((await lookupOnce(lookup)).err).toBe(failure);
    expect(onBlocked).not.toHaveBeenCalled();
  });
});
