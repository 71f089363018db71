import type { CatalogWrites } from '../../src/catalog/service';
import type { CatalogStore } from '../../src/catalog/store';
import type { CatalogEntity } from '../../src/records/catalog';

/** Writes straight into the store, as the topic and the materialiser would, and keeps the log. */
export class LoopbackWriter implements CatalogWrites {
  readonly log: { key: string; entity: CatalogEntity | undefined }[] = [];
  constructor(private readonly store: CatalogStore) {}

  async put(entity: CatalogEntity): Promise<void> {
    this.append(entity.value.id, entity);
  }

  async remove(id: string): Promise<void> {
    this.append(id, undefined);
  }

  private append(key: string, entity: CatalogEntity | undefined): void {
    this.store.apply({ partition: 0, offset: String(this.log.length) }, key, entity);
    this.log.push({ key, entity });
  }
}
