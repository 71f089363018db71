import { HooklineError, ReadLagError } from '../core/errors';
import { BLOCK_REASON_TEXT, type BlockReason } from '../security/address-policy';

export type EntityKind = 'source' | 'destination' | 'audience' | 'computed_trait';

/** The entity named in the request does not exist (or was deleted). */
export class CatalogNotFoundError extends HooklineError {
  readonly retriable = false;
  readonly code: string;
  constructor(
    readonly kind: EntityKind,
    readonly id: string,
  ) {
    super(`${kind} ${id} does not exist`);
    this.code = `${kind}_not_found`;
  }
}

/** A destination refers to a source that does not exist. */
export class UnknownSourceError extends HooklineError {
  readonly retriable = false;
  readonly code = 'unknown_source';
  constructor(readonly sourceId: string) {
    super(`source ${sourceId} does not exist`);
  }
}

/**
 * A webhook URL names an IP address the SSRF guard refuses (loopback, private, metadata, ...).
 * The message names the kind of address, never the URL (it may carry credentials).
 */
export class BlockedWebhookUrlError extends HooklineError {
  readonly retriable = false;
  readonly code = 'webhook_url_blocked';
  constructor(
    readonly urlIndex: number,
    readonly reason: BlockReason,
  ) {
    super(
      `the URL's host is ${BLOCK_REASON_TEXT[reason]}: Hookline does not deliver to internal networks ` +
        '(an operator can allow some with HOOKLINE_ALLOWED_NETWORKS)',
    );
  }
}

/** Deleting a source that still has destinations, without asking for a cascade. */
export class SourceHasDestinationsError extends HooklineError {
  readonly retriable = false;
  readonly code = 'source_has_destinations';
  constructor(
    readonly sourceId: string,
    readonly destinationIds: string[],
  ) {
    super(
      `source ${sourceId} has ${destinationIds.length} destination(s); delete them first or pass ?cascade=true`,
    );
  }
}

/** This process has not read the catalog topic up to where it stood at start. */
export class CatalogNotReadyError extends HooklineError {
  readonly retriable = true;
  readonly code = 'catalog_not_ready';
  constructor() {
    super('the catalog is still loading; try again shortly');
  }
}

/** The local materialiser did not apply an offset in time (or stopped while waiting). */
export class CatalogLagError extends ReadLagError {
  override readonly code = 'catalog_lagging';
}

/** An audience or computed trait whose name maps to a trait key the source already uses. */
export class AudienceKeyTakenError extends HooklineError {
  readonly retriable = false;
  readonly code = 'audience_key_taken';
  constructor(
    readonly sourceId: string,
    readonly key: string,
    readonly takenBy: string,
  ) {
    super(`source ${sourceId} already has ${takenBy} with the trait key ${key}`);
  }
}

function notAt(expected: number | readonly number[]): string {
  if (typeof expected === 'number') return `is not at version ${expected}`;
  if (expected.length === 0) return 'does not match If-Match (weak ETags never match)';
  return `is not at version ${expected.join(' or ')}`;
}

/**
 * A write made from a version that is no longer current: the request's If-Match is stale, or
 * another write (on any replica) won the race to the same version. `currentVersion` is undefined
 * when the entity no longer exists.
 */
export class CatalogConflictError extends HooklineError {
  readonly retriable = false;
  readonly code = 'precondition_failed';
  constructor(
    readonly id: string,
    readonly currentVersion: number | undefined,
    /** The version If-Match named, or the list it gave (empty: only weak ETags, which never match). */
    readonly expectedVersion?: number | readonly number[],
  ) {
    super(
      `${id} ${expectedVersion === undefined ? 'was changed concurrently' : notAt(expectedVersion)}: ` +
        (currentVersion === undefined ? 'it no longer exists' : `its current version is ${currentVersion}`) +
        '; read it again and retry with If-Match set to its ETag',
    );
  }
}
