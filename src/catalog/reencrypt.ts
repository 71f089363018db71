import type { Logger } from '../observability/logger';
import type { Destination } from '../records/catalog-model';
import { SecretUnreadableError, type SecretSealer } from '../security/secrets';
import { CatalogConflictError } from './errors';
import { nextVersion } from './operations';
import { needsReseal } from './secrets';

/**
 * What `reencryptDestinations` did: destinations rewritten (plaintext or another key), not, and
 * the ids of those it could not rewrite since a value of theirs opens with neither key.
 */
export interface ReencryptResult {
  reencrypted: number;
  unchanged: number;
  unreadable: string[];
}

export interface ReencryptOptions {
  destinations: Iterable<Destination>;
  sealer: SecretSealer;
  /** Writes a destination, its stored secrets resealed under the current key (a compare-and-set). */
  put: (destination: Destination) => Promise<unknown>;
  logger: Logger;
}

/**
 * Rewrites every destination that holds plaintext (written before encryption) or values sealed
 * under HOOKLINE_SECRETS_KEY_PREVIOUS, under the current key. Idempotent; `updatedAt` is kept,
 * since nothing a user set has changed. Run it after rolling out a new key to every process. A
 * destination changed meanwhile on another replica is skipped: run it again until it answers 0.
 * A destination holding a value that neither key opens is skipped too, named in `unreadable`
 * and logged, so that one such destination does not stop the others from moving to the new key.
 */
export async function reencryptDestinations(options: ReencryptOptions): Promise<ReencryptResult> {
  const { sealer, logger } = options;
  let reencrypted = 0;
  let unchanged = 0;
  const unreadable: string[] = [];
  for (const destination of options.destinations) {
    if (!needsReseal(destination.settings, sealer)) {
      unchanged++;
      continue;
    }
    try {
      await options.put({ ...destination, version: nextVersion(destination) });
      reencrypted++;
    } catch (err) {
      if (err instanceof SecretUnreadableError) {
        unreadable.push(destination.id);
        logger.warn(
          { destinationId: destination.id, code: err.code, reason: err.message },
          'destination not re-encrypted: a secret of it opens with neither key',
        );
        continue;
      }
      if (!(err instanceof CatalogConflictError)) throw err; // changed meanwhile: not counted
    }
  }
  logger.info(
    { reencrypted, unchanged, unreadable: unreadable.length },
    'destinations re-encrypted under the current key',
  );
  return { reencrypted, unchanged, unreadable };
}
