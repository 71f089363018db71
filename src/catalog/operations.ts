import type { Logger } from '../observability/logger';
import { CatalogConflictError, CatalogNotFoundError, CatalogNotReadyError } from './errors';

/**
 * A write's precondition: the entity's version the client read (If-Match), or the versions any of
 * which it must be at (an If-Match list; empty: none can match, e.g. only weak ETags); absent: none.
 */
export interface WriteCondition {
  ifMatch?: number | readonly number[];
}

/** How often a write without If-Match re-reads and re-applies after losing a race. */
const MAX_WRITE_ATTEMPTS = 5;

/**
 * How the catalog services run their operations: one after another in this process (so each one's
 * checks see the previous one's result), only on a caught-up catalog, and, for a change of one
 * entity, as a compare-and-set on its version (versions.ts) that is retried or reported when it
 * loses a race with another process.
 */
export class OperationQueue {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: { ready: () => boolean; logger: Logger }) {}

  /** Runs the operation after the previous ones, whatever their outcome. */
  serialised<T>(operation: () => Promise<T>): Promise<T> {
    const run = () => {
      // Checks against a half-loaded catalog would be wrong (unknown source, missing entity).
      if (!this.options.ready()) throw new CatalogNotReadyError();
      return operation();
    };
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => undefined);
    return result;
  }

  /**
   * A serialised change of entity `id`. The operation reads the entity, checks it with
   * `expectVersion`, and writes at `nextVersion`. When the write loses a race: with If-Match, a
   * CatalogConflictError naming the expected version (412); without, the operation runs again on
   * the entity as it now is (a few times), so neither change is lost.
   */
  versioned<T>(id: string, condition: WriteCondition, operation: () => Promise<T>): Promise<T> {
    return this.serialised(async () => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await operation();
        } catch (err) {
          if (!(err instanceof CatalogConflictError) || err.expectedVersion !== undefined) throw err;
          // A race lost on another entity the operation writes (a cascade's destination) is retried.
          if (err.id === id && condition.ifMatch !== undefined)
            throw new CatalogConflictError(id, err.currentVersion, condition.ifMatch);
          if (attempt >= MAX_WRITE_ATTEMPTS) throw err;
          this.options.logger.info(
            { id, attempt },
            'catalog write lost a race; re-reading and applying it again',
          );
        }
      }
    });
  }
}

/** The entity, if it is at the version the condition names; else CatalogConflictError. */
export function expectVersion<T extends { id: string; version?: number }>(
  entity: T,
  condition: WriteCondition,
): T {
  const { ifMatch } = condition;
  const version = entity.version ?? 0;
  if (ifMatch !== undefined && !(typeof ifMatch === 'number' ? [ifMatch] : ifMatch).includes(version))
    throw new CatalogConflictError(entity.id, version, ifMatch);
  return entity;
}

/** The version a change of `entity` makes (an entity written before versions existed is at 0). */
export function nextVersion(entity: { version?: number }): number {
  return (entity.version ?? 0) + 1;
}

/** The entity an operation reads; CatalogNotFoundError when there is none. */
export function found<T>(kind: 'source' | 'destination', id: string, entity: T | undefined): T {
  if (!entity) throw new CatalogNotFoundError(kind, id);
  return entity;
}
