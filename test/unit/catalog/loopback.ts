import { CatalogConflictError } from '../../../src/catalog/errors';
import type { CatalogWrites } from '../../../src/catalog/service';
import type { CatalogStore } from '../../../src/catalog/store';
import type { CatalogEntity } from '../../../src/records/catalog';

export /**
 * Writes straight into the store, as the topic and the materialiser would, keeps the log, and
 * reports a rejected compare-and-set as CatalogWriter does. `before` runs before each append:
 * another replica's write landing first.
 */
class LoopbackWriter implements CatalogWrites {
  readonly log: { key: string; entity: CatalogEntity | undefined; version?: number }[] = [];
  before: (() => void) | undefined;
  constructor(private readonly store: CatalogStore) {}

  async put(entity: CatalogEntity, version?: number): Promise<void> {
    this.append(entity.value.id, entity, version);
  }

  async remove(id: string, version?: number): Promise<void> {
    this.append(id, undefined, version);
  }

  /** Appends a record as another process would, bypassing the service. */
  append(key: string, entity: CatalogEntity | undefined, version?: number): void {
    const before = this.before;
    this.before = undefined;
    before?.();
    const position = { partition: 0, offset: String(this.log.length) };
    this.store.apply(position, key, entity, { ...(version !== undefined && { version }), repair: false });
    this.log.push({ key, entity, ...(version !== undefined && { version }) });
    const rejection = this.store.rejection(position);
    if (rejection) throw new CatalogConflictError(key, rejection.currentVersion);
  }
}
