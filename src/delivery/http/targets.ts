import { literalAddress, type AddressPolicy } from '../../security/address-policy';

/** What a request needs from a webhook URL: where to connect, the path, and the SSRF guard's verdict on an IP literal. */
export interface Target {
  origin: string;
  /** Path and query string. */
  path: string;
  /** The URL's host is an IP literal the address policy refuses: no connection may be opened. */
  blocked: boolean;
}

/** URLs kept parsed per client; past this many the cache starts again. */
const MAX_TARGETS = 10_000;

/**
 * Webhook URLs parsed once: a destination's URL is the same for every task, and parsing it
 * (twice: origin and path, then the literal check) with the address policy's verdict cost ~2%
 * of the end-to-end profile per request. The policy is fixed for the client's life, so a cached
 * verdict never goes stale. A host name is still checked at every connection (guardedLookup).
 */
export class Targets {
  private readonly cache = new Map<string, Target>();

  constructor(private readonly policy: AddressPolicy) {}

  /** Throws (TypeError) for a URL that does not parse; such a URL is not cached. */
  of(url: string): Target {
    let target = this.cache.get(url);
    if (target === undefined) {
      const parsed = new URL(url);
      const literal = literalAddress(parsed);
      target = {
        origin: parsed.origin,
        path: parsed.pathname + parsed.search,
        blocked: literal !== undefined && !this.policy.check(literal).allowed,
      };
      if (this.cache.size >= MAX_TARGETS) this.cache.clear();
      this.cache.set(url, target);
    }
    return target;
  }
}
