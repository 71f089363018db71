import { CatalogLagError } from '../../../src/catalog/errors';
import { hashWriteKey } from '../../../src/catalog/keys';
import { CatalogStore, type CatalogChange } from '../../../src/catalog/store';
import { silentLogger } from '../../../src/observability/logger';
import { sampleDestination, sampleSource } from '../../fixtures/catalog';

const at = (offset: number, partition = 0) => ({ partition, offset: String(offset) });

function newStore(): CatalogStore {
  return new CatalogStore({ logger: silentLogger() });
}

describe('CatalogStore', () => {
  it('looks sources up by write key through its hash', () => {
    const store = newStore();
    const source = sampleSource({ writeKeyHash: hashWriteKey('wk_secret') });
    store.apply(at(0), source.id, { kind: 'source', value: source });
    expect(store.sourceByWriteKey('wk_secret')).toBe(source);
    expect(store.sourceByWriteKey('wk_other')).toBeUndefined();
  });

  it('lists a source’s destinations in creation order, whatever the log order', () => {
    const store = newStore();
    const later = sampleDestination({ id: 'dst_b', createdAt: '2024-05-03T00:00:00.000Z' });
    const earlier = sampleDestination({ id: 'dst_a', createdAt: '2024-05-02T00:00:00.000Z' });
    const otherSource = sampleDestination({ id: 'dst_c', sourceId: 'src_other' });
    store.apply(at(0), later.id, { kind: 'destination', value: later });
    store.apply(at(1), earlier.id, { kind: 'destination', value: earlier });
    store.apply(at(2), otherSource.id, { kind: 'destination', value: otherSource });
    expect(store.destinationsOfSource(later.sourceId).map((d) => d.id)).toEqual(['dst_a', 'dst_b']);
    expect(store.destinationsOfSource('src_none')).toEqual([]);
  });

  it('deletes on a tombstone and tells listeners what changed', () => {
    const store = newStore();
    const changes: CatalogChange[] = [];
    store.onChange((c) => changes.push(c));
    const destination = sampleDestination();
    store.apply(at(0), destination.id, { kind: 'destination', value: destination });
    store.apply(at(1), destination.id, undefined);
    store.apply(at(2), 'dst_unknown', undefined);
    expect(store.destination(destination.id)).toBeUndefined();
    expect(store.destinationsOfSource(destination.sourceId)).toEqual([]);
    expect(changes).toEqual([
      { kind: 'destination', id: destination.id, before: undefined, after: destination },
      { kind: 'destination', id: destination.id, before: destination, after: undefined },
    ]);
  });

  it('ignores a replayed record (a consumer rejoin reads from the start again)', () => {
    const store = newStore();
    const v1 = sampleSource({ name: 'v1' });
    const v2 = sampleSource({ name: 'v2' });
    store.apply(at(0), v1.id, { kind: 'source', value: v1 });
    store.apply(at(1), v2.id, { kind: 'source', value: v2 });
    store.apply(at(0), v1.id, { kind: 'source', value: v1 });
    expect(store.source(v1.id)?.name).toBe('v2');
  });

  it('keeps going when a listener throws', () => {
    const store = newStore();
    const seen: string[] = [];
    store.onChange(() => {
      throw new Error('boom');
    });
    store.onChange((c) => seen.push(c.id));
    const source = sampleSource();
    store.apply(at(0), source.id, { kind: 'source', value: source });
    expect(seen).toEqual([source.id]);
  });

  describe('readiness', () => {
    it('is ready at once on an empty topic', () => {
      const store = newStore();
      expect(store.ready).toBe(false);
      store.expect([{ partition: 0, low: '0', high: '0' }]);
      expect(store.ready).toBe(true);
    });

    it('is ready at once when compaction or retention left nothing to read', () => {
      const store = newStore();
      store.expect([{ partition: 0, low: '7', high: '7' }]);
      expect(store.ready).toBe(true);
    });

    it('becomes ready once the last offset present at start is processed, skipped ones included', async () => {
      const store = newStore();
      store.expect([{ partition: 0, low: '0', high: '3' }]);
      const whenReady = store.whenReady();
      store.apply(at(0), 'src_x', undefined);
      store.skip(at(1));
      expect(store.ready).toBe(false);
      store.skip(at(2));
      expect(store.ready).toBe(true);
      await expect(whenReady).resolves.toBeUndefined();
    });

    it('waits for every partition', () => {
      const store = newStore();
      store.expect([
        { partition: 0, low: '0', high: '1' },
        { partition: 1, low: '0', high: '2' },
      ]);
      store.skip(at(0, 0));
      expect(store.ready).toBe(false);
      store.skip(at(1, 1));
      expect(store.ready).toBe(true);
    });
  });

  describe('waitForOffset', () => {
    it('resolves when the offset is applied, and at once for one already applied', async () => {
      const store = newStore();
      const waiting = store.waitForOffset('1', 1_000);
      store.skip(at(0));
      store.skip(at(1));
      await expect(waiting).resolves.toBeUndefined();
      await expect(store.waitForOffset('0', 1_000)).resolves.toBeUndefined();
    });

    it('counts a later offset as reaching an earlier one (compaction leaves gaps)', async () => {
      const store = newStore();
      const waiting = store.waitForOffset('5', 1_000);
      store.skip(at(9));
      await expect(waiting).resolves.toBeUndefined();
    });

    it('only counts offsets of the same partition', async () => {
      const store = newStore();
      const waiting = store.waitForOffset('0', 50, 1);
      store.skip(at(3, 0));
      await expect(waiting).rejects.toBeInstanceOf(CatalogLagError);
    });

    it('rejects after the deadline, and when the store closes', async () => {
      const store = newStore();
      await expect(store.waitForOffset('0', 10)).rejects.toBeInstanceOf(CatalogLagError);
      const pending = store.waitForOffset('0', 60_000);
      store.close();
      await expect(pending).rejects.toBeInstanceOf(CatalogLagError);
    });
  });
});
