import { Creation, needsHistory, planCreation } from '../../../src/audiences/creation';
import { Definitions } from '../../../src/audiences/definitions';
import {
  AudiencePartition,
  Outbox,
  isAnnouncement,
  type ProcessorTime,
} from '../../../src/audiences/partition';
import type { Audience, ComputedTrait } from '../../../src/catalog';
import type { HooklineEvent } from '../../../src/events/types';
import type { AudienceCommand } from '../../../src/records/audience-state';
import type { UserStates } from '../../../src/audiences/user-states';
import { memoryDiskStates } from './memory-disk';

const HOUR = 3_600_000;
const T0 = Date.parse('2024-05-01T00:00:00.000Z');
const time = (hours = 0): ProcessorTime => ({ nowMs: T0 + hours * HOUR, hourMs: HOUR, bucketMs: HOUR });
const stamp = { createdAt: '2024-01-01T00:00:00.000Z', updatedAt: '2024-01-01T00:00:00.000Z' };

const audience = (id: string, rule?: unknown): Audience => ({
  id,
  sourceId: 's',
  name: id,
  key: id,
  rule,
  ...stamp,
});
const trait = (id: string, compute: unknown): ComputedTrait => ({
  id,
  sourceId: 's',
  name: id,
  key: id,
  compute,
  ...stamp,
});

const base = {
  messageId: 'm',
  timestamp: new Date(T0).toISOString(),
  receivedAt: new Date(T0).toISOString(),
};
const identify = (userId: string, traits: Record<string, unknown>, sourceId = 's'): HooklineEvent => ({
  ...base,
  type: 'identify',
  userId,
  sourceId,
  traits: traits as never,
});
const track = (userId: string, event: string, hours = 0): HooklineEvent => ({
  ...base,
  timestamp: new Date(T0 + hours * HOUR).toISOString(),
  type: 'track',
  userId,
  sourceId: 's',
  event,
});

const pro = audience('aud_pro', { trait: { name: 'plan', equals: 'pro' } });
const buyers = audience('aud_buyers', { event: { name: 'Order Completed', withinHours: 2 } });
const orders = trait('ctr_orders', { count: { event: 'Order Completed' } });

/** Where the tests keep user states: all in memory, or on a (fake) disk with no cache at all. */
const stores: Array<[string, () => UserStates]> = [
  ['in memory', () => new Map()],
  ['on disk, nothing cached', () => memoryDiskStates({ cacheUsers: 0, writeBatchUsers: 1, pageUsers: 1 })],
  ['on disk, cached', () => memoryDiskStates({ cacheUsers: 1_000 })],
];

describe.each(stores)('users %s', (_name, newStates) => {
  /** A partition on which the given computations are created (no history), and an event applier. */
  function livePartition(defs: Definitions) {
    const partition = new AudiencePartition(0, newStates());
    for (const c of defs.all()) {
      const creation = new Creation(partition, planCreation(partition, defs, c, HOUR), new Outbox());
      creation.start(time());
      creation.finish(time());
    }
    const apply = (event: HooklineEvent, at = time()) => {
      const out = new Outbox();
      partition.applyEvent(event, defs, at, out);
      partition.announceEvaluated(defs, at, out);
      return out;
    };
    return { partition, apply };
  }
  const said = (out: Outbox) => out.announcements.map((a) => [a.user.userId, a.computation.id, a.value]);

  describe('AudiencePartition', () => {
    it('announces joins and leaves, once each; other sources are not kept', () => {
      const defs = new Definitions([pro], []);
      const { partition, apply } = livePartition(defs);
      expect(said(apply(identify('u1', { plan: 'pro' })))).toEqual([['u1', 'aud_pro', true]]);
      expect(said(apply(identify('u1', { plan: 'pro', name: 'x' })))).toEqual([]);
      expect(said(apply(identify('u1', { plan: 'free' })))).toEqual([['u1', 'aud_pro', false]]);
      expect(said(apply(identify('u2', { plan: 'free' })))).toEqual([]); // never a member: no false
      expect(apply(identify('u9', { plan: 'pro' }, 'other')).empty).toBe(true);
      expect([...partition.users.entries()].map(([key]) => key).sort()).toEqual(['s:u1', 's:u2']);
      expect(partition.membersOf('aud_pro')).toBe(0);
    });

    it('skips its own announcements (context.personas)', () => {
      const own = {
        ...identify('u1', { aud_pro: true }),
        context: { personas: { computation_id: 'aud_pro' } },
      };
      expect(isAnnouncement(own as HooklineEvent)).toBe(true);
      expect(isAnnouncement(identify('u1', {}))).toBe(false);
      const { partition, apply } = livePartition(new Definitions([pro], []));
      expect(apply(own as HooklineEvent).empty).toBe(true);
      expect(partition.users.size).toBe(0);
    });

    it('computed traits: a value on first sight, then only changes', () => {
      const defs = new Definitions([], [orders]);
      const { apply } = livePartition(defs);
      expect(said(apply(track('u1', 'Order Completed')))).toEqual([['u1', 'ctr_orders', 1]]);
      expect(said(apply(track('u1', 'Cart Viewed')))).toEqual([]);
      expect(said(apply(track('u1', 'Order Completed')))).toEqual([['u1', 'ctr_orders', 2]]);
    });

    it('a user with several events in one step is evaluated once, after all of them', () => {
      const defs = new Definitions([pro], [orders]);
      const { partition } = livePartition(defs);
      const out = new Outbox();
      for (const e of [
        track('u1', 'Order Completed'),
        identify('u1', { plan: 'pro' }),
        track('u1', 'Order Completed'),
        identify('u1', { plan: 'free' }),
        track('u1', 'Order Completed'),
      ])
        partition.applyEvent(e, defs, time(), out);
      expect(out.announcements).toEqual([]);
      partition.announceEvaluated(defs, time(), out);
      expect(said(out)).toEqual([['u1', 'ctr_orders', 3]]); // pro and free again: no join, no leave
      expect(out.evaluate.size).toBe(0);
    });

    it('the sync lets users leave windows as time passes, and prunes buckets', () => {
      const defs = new Definitions([buyers], []);
      const { partition, apply } = livePartition(defs);
      expect(said(apply(track('u1', 'Order Completed')))).toEqual([['u1', 'aud_buyers', true]]);
      const [early] = [...partition.resync(defs, time(1))];
      expect(early!.announcements).toEqual([]);
      const [late] = [...partition.resync(defs, time(4))];
      expect(said(late!)).toEqual([['u1', 'aud_buyers', false]]);
      expect(partition.users.get('s:u1')!.counters).toEqual({
        [JSON.stringify(['Order Completed', null, null])]: { total: 1, buckets: {} },
      });
    });

    it('a delete event removes the user and their counts', () => {
      const defs = new Definitions([pro], []);
      const { partition, apply } = livePartition(defs);
      apply(identify('u1', { plan: 'pro' }));
      expect(partition.membersOf('aud_pro')).toBe(1);
      const out = apply({ ...base, type: 'delete', userId: 'u1', sourceId: 's' });
      expect(out.users.has('s:u1')).toBe(true);
      expect(partition.users.get('s:u1')).toBeUndefined();
      expect(partition.users.size).toBe(0);
      expect(partition.membersOf('aud_pro')).toBe(0);
    });

    it('synced audiences: a full list, a change; users left out of a full list leave', () => {
      const crm = audience('aud_crm');
      const defs = new Definitions([crm], []);
      const { partition } = livePartition(defs);
      const command0: AudienceCommand = {
        audienceId: 'aud_crm',
        sourceId: 's',
        syncId: 'x',
        add: [],
        remove: [],
        full: false,
        last: true,
      };
      const run = (c: Partial<AudienceCommand>) => {
        const out = new Outbox();
        partition.applyCommand({ ...command0, ...c }, defs, time(), out);
        return said(out).sort();
      };
      expect(run({ syncId: '1', full: true, add: ['a', 'b'] })).toEqual([
        ['a', 'aud_crm', true],
        ['b', 'aud_crm', true],
      ]);
      expect(run({ syncId: '2', full: true, add: ['b'], last: false })).toEqual([]);
      expect(run({ syncId: '2', full: true, add: ['c'] })).toEqual([
        ['a', 'aud_crm', false],
        ['c', 'aud_crm', true],
      ]);
      expect(run({ syncId: '3', full: true, add: ['c', 'b'] })).toEqual([]);
      expect(run({ add: ['d'], remove: ['b', 'nobody'] })).toEqual([
        ['b', 'aud_crm', false],
        ['d', 'aud_crm', true],
      ]);
      expect(partition.membersOf('aud_crm')).toBe(2);
      expect(run({ audienceId: 'aud_unknown', add: ['e'] })).toEqual([]);
      // Said so (the processor logs the drop); a command that applies says true.
      const unknown = { ...command0, audienceId: 'aud_unknown', add: ['e'] };
      expect(partition.applyCommand(unknown, defs, time(), new Outbox())).toBe(false);
      expect(partition.applyCommand({ ...command0, add: ['e'] }, defs, time(), new Outbox())).toBe(true);
    });

    it('forgets deleted computations', () => {
      const { partition } = livePartition(new Definitions([pro], []));
      const out = new Outbox();
      partition.forget(new Definitions([], []), out);
      expect(partition.live.size).toBe(0);
      expect(out.partitionChanged).toBe(true);
    });

    it('the sync drops what deleted computations left: their values, unread counters, then the users', () => {
      let defs = new Definitions([pro, buyers], [orders]);
      const { partition, apply } = livePartition(defs);
      apply(identify('u1', { plan: 'pro' }));
      apply(track('u1', 'Order Completed'));
      apply(track('u2', 'Order Completed'));
      expect(Object.keys(partition.users.get('s:u1')!.announced).sort()).toEqual([
        'aud_buyers',
        'aud_pro',
        'ctr_orders',
      ]);
      const resync = (at: ProcessorTime) => {
        const steps = [...partition.resync(defs, at, 1)];
        return steps.flatMap((o) => [...o.users]).sort();
      };

      // The counter's readers are gone: announced values and the counter go; the trait stays.
      defs = new Definitions([pro], []);
      partition.forget(defs, new Outbox());
      expect(resync(time(1))).toEqual(['s:u1', 's:u2']);
      expect(partition.users.get('s:u1')).toMatchObject({
        traits: { plan: 'pro' },
        counters: {},
        announced: { aud_pro: true },
      });
      expect(resync(time(2))).toEqual([]); // nothing left to drop: nothing written

      // No computation of the source left: its users go (tombstones), so nothing is kept.
      defs = new Definitions([], []);
      partition.forget(defs, new Outbox());
      expect(resync(time(3))).toEqual(['s:u1', 's:u2']);
      expect(partition.users.size).toBe(0);
      expect(partition.users.get('s:u1')).toBeUndefined();
    });
  });

  describe('creation', () => {
    it('rebuilds from history: everything for a source with nothing live, only new counters otherwise', () => {
      const defs = new Definitions([pro, buyers], [orders]);
      const partition = new AudiencePartition(0, newStates());
      const history = [
        identify('u1', { plan: 'pro' }),
        track('u1', 'Order Completed'),
        track('u2', 'Order Completed'),
      ];

      const first = planCreation(partition, defs, defs.get('aud_pro')!, HOUR);
      expect(first.full).toBe(true);
      const out = new Outbox();
      const creation = new Creation(partition, first, out);
      creation.start(time());
      for (const e of history) creation.apply(e, time());
      creation.finish(time());
      expect(said(out)).toEqual([['u1', 'aud_pro', true]]);

      const second = planCreation(partition, defs, defs.get('ctr_orders')!, HOUR);
      expect(second.full).toBe(false);
      expect(second.specs.counters.map((c) => c.event)).toEqual(['Order Completed']);
      const out2 = new Outbox();
      const c2 = new Creation(partition, second, out2);
      c2.start(time());
      for (const e of history) c2.apply(e, time());
      c2.finish(time());
      expect(said(out2).sort()).toEqual([
        ['u1', 'ctr_orders', 1],
        ['u2', 'ctr_orders', 1],
      ]);
      expect(partition.users.get('s:u1')!.traits).toEqual({ plan: 'pro' }); // not applied twice

      // The windowed audience reads the same counter over a window the total-only counter lacks.
      const third = planCreation(partition, defs, defs.get('aud_buyers')!, HOUR);
      expect(third.specs.counters).toHaveLength(0);
      expect(third.extended.map((c) => [c.spec.event, c.keptWindowMs])).toEqual([
        ['Order Completed', undefined],
      ]);
      expect(needsHistory(third)).toBe(true);
      const synced = new Definitions([audience('aud_sync')], []);
      // A source with nothing live is read in full, even for a synced audience.
      expect(
        needsHistory(planCreation(new AudiencePartition(1), synced, synced.get('aud_sync')!, HOUR)),
      ).toBe(true);
    });
    it('a new windowed computation keeps the counts live ones read (history older than the topic stays)', () => {
      const loyal = audience('aud_loyal', { event: { name: 'Order', atLeast: 3 } });
      const recent = trait('ctr_recent', { count: { event: 'Order', withinDays: 30 } });
      const partition = new AudiencePartition(0, newStates());
      let defs = new Definitions([loyal], []);
      const create = (id: string, history: HooklineEvent[], at: ProcessorTime) => {
        const out = new Outbox();
        const creation = new Creation(partition, planCreation(partition, defs, defs.get(id)!, HOUR), out);
        creation.start(at);
        for (const e of history) creation.apply(e, at);
        creation.finish(at);
        return out;
      };
      const live = (event: HooklineEvent, at: ProcessorTime) => {
        const out = new Outbox();
        partition.applyEvent(event, defs, at, out);
        partition.announceEvaluated(defs, at, out);
        return out;
      };
      create('aud_loyal', [], time());
      live(track('u1', 'Order', 24), time(24));
      live(track('u1', 'Order', 48), time(48));
      expect(said(live(track('u1', 'Order', 20 * 24), time(20 * 24)))).toEqual([['u1', 'aud_loyal', true]]);

      // Day 25: the orders of days 1 and 2 are no longer on hookline.events (7-day retention).
      defs = new Definitions([loyal], [recent]);
      const at = time(25 * 24);
      const out = create('ctr_recent', [track('u1', 'Order', 20 * 24)], at);
      expect(said(out)).toEqual([['u1', 'ctr_recent', 1]]);
      expect(partition.users.get('s:u1')!.counters['["Order",null,null]']!.total).toBe(3);
      const later = new Outbox();
      partition.applyEvent(
        { ...track('u1', 'Page'), type: 'page' } as HooklineEvent,
        defs,
        time(26 * 24),
        later,
      );
      partition.announceEvaluated(defs, time(26 * 24), later);
      expect(said(later)).toEqual([]); // still loyal: no false
    });

    it('a longer window adds only the buckets older than the kept window, each once', () => {
      const short = audience('aud_short', { event: { name: 'Order', withinHours: 10 } });
      const long = trait('ctr_long', { count: { event: 'Order', withinHours: 60 } });
      const partition = new AudiencePartition(0, newStates());
      let defs = new Definitions([short], []);
      const history = [track('u1', 'Order', 0), track('u1', 'Order', 50), track('u1', 'Order', 95)];
      const first = new Creation(
        partition,
        planCreation(partition, defs, defs.get('aud_short')!, HOUR),
        new Outbox(),
      );
      first.start(time(100));
      for (const e of history) first.apply(e, time(100));
      first.finish(time(100));
      const state = partition.users.get('s:u1')!;
      // Live, the bucket of hour 50 is counted; a sync has not pruned it yet.
      expect(state.counters['["Order",null,null]']).toEqual({
        total: 3,
        buckets: { [T0]: 1, [T0 + 50 * HOUR]: 1, [T0 + 95 * HOUR]: 1 },
      });

      defs = new Definitions([short], [long]);
      const plan = planCreation(partition, defs, defs.get('ctr_long')!, HOUR);
      expect(plan.extended.map((c) => c.keptWindowMs)).toEqual([10 * HOUR]);
      const out = new Outbox();
      const second = new Creation(partition, plan, out);
      second.start(time(100));
      for (const e of history) second.apply(e, time(100));
      second.finish(time(100));
      expect(partition.users.get('s:u1')!.counters['["Order",null,null]']).toEqual({
        total: 3,
        buckets: { [T0]: 1, [T0 + 50 * HOUR]: 1, [T0 + 95 * HOUR]: 1 },
      });
      expect(said(out)).toEqual([['u1', 'ctr_long', 2]]);
    });
  });
});
