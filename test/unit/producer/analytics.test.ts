import { parseJson, stringifyJson } from '../../../src/events/json';
import type { TrackingEvent } from '../../../src/events/types';
import { KafkaUnavailableError, UnencodableRecordError } from '../../../src/core/errors';
import {
  Analytics,
  ClientClosedError,
  InvalidMessageError,
  MAX_MESSAGE_BYTES,
  MessageTooLargeError,
  MessagesNotDeliveredError,
  QueueFullError,
  type CommonOptions,
} from '../../../src/producer';
import type { FreeformObject, FreeformValue } from '../../../src/producer/messages';
import { normalizeCall } from '../../../src/producer/messages';
import type { Transport } from '../../../src/producer/transport';
import { trackWaitingForRoom } from '../../support/paced-track';
import { ManualTime, settle } from './manual-time';

/** A transport that normalises like the Kafka one and whose sends the test acknowledges by hand. */
function setup(options: CommonOptions = {}, transportOptions: Partial<Transport<string>> = {}) {
  const time = new ManualTime();
  const sent: { events: TrackingEvent[]; ack: () => void; fail: (err: Error) => void }[] = [];
  const transport: Transport<string> = {
    name: 'kafka',
    sourceId: 'src_test',
    batchOverheadBytes: 0,
    itemOverheadBytes: 0,
    prepare(raw) {
      const { event } = normalizeCall(raw, { sourceId: 'src_test', receivedAtMs: time.now() });
      const text = stringifyJson(event);
      return { payload: text, bytes: Buffer.byteLength(text), messageId: event.messageId };
    },
    send: (batch) =>
      new Promise<void>((ack, fail) =>
        sent.push({ events: batch.map((t) => parseJson(t) as unknown as TrackingEvent), ack, fail }),
      ),
    close: async () => {},
    ...transportOptions,
  };
  const analytics = Analytics.over(transport, { clock: time, scheduler: time, ...options });
  const ackAll = async () => {
    for (;;) {
      await settle();
      const pending = sent.filter((s) => !('done' in s));
      if (pending.length === 0) return;
      for (const s of pending) {
        Object.assign(s, { done: true });
        s.ack();
      }
    }
  };
  return { time, sent, analytics, ackAll, transport };
}

describe('Analytics', () => {
  it('normalises each call as the tracking API does, and returns its messageId', () => {
    const { analytics, sent } = setup({ flushAt: 6 });
    const at = new Date('2024-04-01T08:00:00.000Z');
    const ids = [
      analytics.identify({ userId: 'u1', traits: { plan: 'pro' } }),
      analytics.track({
        anonymousId: 'a1',
        event: 'Clicked',
        properties: { n: 1 },
        messageId: 'given',
        timestamp: at,
      }),
      analytics.page({
        userId: 'u1',
        name: 'Home',
        category: 'Docs',
        properties: { url: 'https://x.test/' },
      }),
      analytics.screen({ userId: 'u1', name: 'Cart' }),
      analytics.group({ userId: 'u1', groupId: 'g1', traits: { seats: 3 } }),
      analytics.alias({ userId: 'u1', previousId: 'a1', integrations: { All: false, Webhooks: true } }),
    ];
    expect(ids[1]).toBe('given');
    expect(ids[0]).toMatch(/^[0-9a-f-]{36}$/);
    const events = sent[0]!.events;
    expect(events.map((e) => e.type)).toEqual(['identify', 'track', 'page', 'screen', 'group', 'alias']);
    expect(events[1]).toEqual({
      type: 'track',
      messageId: 'given',
      anonymousId: 'a1',
      event: 'Clicked',
      properties: { n: 1 },
      timestamp: '2024-04-01T08:00:00.000Z',
      originalTimestamp: '2024-04-01T08:00:00.000Z',
      receivedAt: '2024-05-01T12:00:00.000Z',
      sourceId: 'src_test',
    });
    expect(events[5]).toMatchObject({ previousId: 'a1', integrations: { All: false, Webhooks: true } });
    expect(events.map((e) => e.messageId)).toEqual(ids);
  });

  it('keeps bigint exact and sends Dates as ISO 8601 in free-form values', () => {
    const { analytics, sent } = setup({ flushAt: 1 });
    analytics.track({
      userId: 'u1',
      event: 'Paid',
      properties: {
        orderId: 12345678901234567890n,
        at: new Date('2024-01-02T03:04:05.006Z'),
        skipped: undefined,
      },
    });
    expect(stringifyJson(sent[0]!.events[0]!.type === 'track' && sent[0]!.events[0]!.properties)).toBe(
      '{"orderId":12345678901234567890,"at":"2024-01-02T03:04:05.006Z"}',
    );
  });

  it.each([
    ['identify', { traits: {} }, 'missing_identity'],
    ['track', { userId: 'u1' }, 'missing_event'],
    ['track', { userId: 'u1', event: 42 }, 'invalid_field'],
    ['group', { userId: 'u1' }, 'missing_group_id'],
    ['alias', { userId: 'u1' }, 'missing_previous_id'],
    ['alias', { previousId: 'p1', anonymousId: 'a1' }, 'missing_user_id'],
    ['page', { userId: 'u1', timestamp: 'yesterday' }, 'invalid_timestamp'],
    ['page', { userId: 'u1', timestamp: new Date('nope') }, 'invalid_timestamp'],
    ['screen', { userId: 'u1', properties: ['not', 'an', 'object'] }, 'invalid_field'],
    ['identify', 'u1', 'not_an_object'],
  ] as const)('%s(%j) throws InvalidMessageError %s and queues nothing', (method, message, code) => {
    const { analytics } = setup();
    const call = () => (analytics[method] as (m: unknown) => string)(message);
    expect(call).toThrow(InvalidMessageError);
    expect(call).toThrow(expect.objectContaining({ code, retriable: false }));
    expect(analytics.queued).toBe(0);
  });

  it('refuses a call nested too deep, or cyclic, with too_deep, not a stack overflow', () => {
    const { analytics } = setup();
    let deep: FreeformValue = [];
    for (let i = 0; i < 20_000; i++) deep = [deep];
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    for (const properties of [{ deep }, cyclic as FreeformObject]) {
      const call = () => analytics.track({ userId: 'u1', event: 'E', properties });
      expect(call).toThrow(expect.objectContaining({ code: 'too_deep', retriable: false }));
    }
    expect(analytics.queued).toBe(0);
  });

  it('refuses a call over 32 KB with MessageTooLargeError, and takes one just under', () => {
    const { analytics } = setup();
    const overhead = Buffer.byteLength(
      stringifyJson({ type: 'track', messageId: 'm', userId: 'u', event: 'e', properties: { s: '' } }),
    );
    const fits = {
      messageId: 'm',
      userId: 'u',
      event: 'e',
      properties: { s: 'x'.repeat(MAX_MESSAGE_BYTES - overhead) },
    };
    expect(analytics.track(fits)).toBe('m');
    const tooBig = { ...fits, properties: { s: 'x'.repeat(MAX_MESSAGE_BYTES - overhead + 1) } };
    expect(() => analytics.track(tooBig)).toThrow(MessageTooLargeError);
    expect(() => analytics.track(tooBig)).toThrow(expect.objectContaining({ code: 'event_too_large' }));
    expect(analytics.queued).toBe(1);
  });

  it('flushes every 20 calls and 5 s after the last flush by default', () => {
    const { analytics, sent, time } = setup();
    for (let i = 0; i < 19; i++) analytics.track({ userId: 'u', event: `e${i}` });
    expect(sent).toHaveLength(0);
    analytics.track({ userId: 'u', event: 'e19' });
    expect(sent[0]!.events).toHaveLength(20);
    analytics.track({ userId: 'u', event: 'later' });
    time.advance(4_999);
    expect(sent).toHaveLength(1);
    time.advance(1);
    expect(sent).toHaveLength(1); // due, but waits for the batch in flight
  });

  it('throws QueueFullError (retriable) when maxQueuedMessages calls are held; room returns on ack', async () => {
    const { analytics, ackAll } = setup({ maxQueuedMessages: 3, flushAt: 2 });
    for (let i = 0; i < 3; i++) analytics.track({ userId: 'u', event: `e${i}` });
    expect(() => analytics.track({ userId: 'u', event: 'over' })).toThrow(QueueFullError);
    await ackAll();
    expect(analytics.queued).toBe(1);
    expect(() => analytics.track({ userId: 'u', event: 'fits' })).not.toThrow();
  });

  it('waitForRoom() answers QueueFullError: a caller that awaits it gets every call queued and sent, in order', async () => {
    const { analytics, sent } = setup({ maxQueuedMessages: 4, flushAt: 2 });
    const acker = setInterval(() => {
      for (const s of sent.filter((x) => !('done' in x))) {
        Object.assign(s, { done: true });
        s.ack();
      }
    }, 1);
    try {
      const counter = { waits: 0 };
      for (let i = 0; i < 20; i++)
        await trackWaitingForRoom(analytics, { userId: 'u', event: `e${i}` }, counter);
      await analytics.close();
      expect(counter.waits).toBeGreaterThan(0);
      expect(sent.flatMap((s) => s.events.map((e) => (e as { event?: string }).event))).toEqual(
        Array.from({ length: 20 }, (_, i) => `e${i}`),
      );
    } finally {
      clearInterval(acker);
    }
  });

  it('waitForRoom() settles while close() sends the queue, and the next call says the client is closed', async () => {
    const { analytics, ackAll } = setup({ maxQueuedMessages: 2, flushAt: 2 });
    analytics.track({ userId: 'u', event: 'a' });
    analytics.track({ userId: 'u', event: 'b' });
    const room = analytics.waitForRoom();
    const closed = analytics.close();
    await ackAll();
    await closed;
    await room;
    expect(() => analytics.track({ userId: 'u', event: 'late' })).toThrow(ClientClosedError);
  });

  it('close() tells the transport at once that no call will be prepared, while the queue is still sent', async () => {
    const { analytics, sent, ackAll, transport } = setup({ flushAt: 10 });
    const closing = jest.fn();
    transport.closing = closing;
    analytics.track({ userId: 'u', event: 'a' });
    const closed = analytics.close();
    expect(closing).toHaveBeenCalledTimes(1);
    await settle();
    expect(sent).toHaveLength(1); // sent after closing() was called, and not yet acknowledged
    await ackAll();
    await closed;
    expect(closing).toHaveBeenCalledTimes(1);
  });

  it('close() sends everything queued, resolves on acknowledgement, and refuses later calls', async () => {
    const { analytics, sent, ackAll } = setup();
    for (let i = 0; i < 25; i++) analytics.track({ userId: 'u', event: `e${i}` });
    const closed = analytics.close();
    expect(analytics.closed).toBe(true);
    expect(() => analytics.track({ userId: 'u', event: 'late' })).toThrow(ClientClosedError);
    await ackAll();
    await closed;
    expect(sent.flatMap((s) => s.events).map((e) => (e.type === 'track' ? e.event : ''))).toEqual(
      Array.from({ length: 25 }, (_, i) => `e${i}`),
    );
    expect(analytics.close()).toBe(closed);
  });

  it('close() rejects with MessagesNotDeliveredError counting what could not be sent within closeTimeoutMs', async () => {
    const errors: Error[] = [];
    const { analytics, sent, time } = setup({ onError: (err) => errors.push(err), closeTimeoutMs: 3_000 });
    for (let i = 0; i < 5; i++) analytics.track({ userId: 'u', event: `e${i}` });
    const closed = analytics.close();
    for (let attempt = 0; attempt < 3; attempt++) {
      await settle();
      sent[attempt]!.fail(new KafkaUnavailableError('down'));
      await settle();
      time.advance(1_000); // close() tries a retriable failure again after a pause
    }
    await expect(closed).rejects.toBeInstanceOf(MessagesNotDeliveredError);
    await expect(closed).rejects.toMatchObject({ count: 5, cause: expect.any(KafkaUnavailableError) });
    expect(sent).toHaveLength(3); // the first try and two more, then the deadline
    expect(errors).toHaveLength(3);
    expect(errors.every((err) => err instanceof KafkaUnavailableError)).toBe(true);
  });

  it('close() sends a batch that failed retriably again, and resolves once it is acknowledged', async () => {
    const { analytics, sent, time, ackAll } = setup();
    for (let i = 0; i < 3; i++) analytics.track({ userId: 'u', event: `e${i}` });
    const closed = analytics.close();
    await settle();
    sent[0]!.fail(new KafkaUnavailableError('leader election'));
    Object.assign(sent[0]!, { done: true });
    await settle();
    time.advance(1_000);
    await ackAll();
    await expect(closed).resolves.toBeUndefined();
    expect(sent.map((s) => s.events.length)).toEqual([3, 3]);
  });

  it('flush() after a close() that could not deliver rejects at once instead of never settling', async () => {
    const { analytics, sent, time } = setup({ closeTimeoutMs: 1_000 });
    for (let i = 0; i < 3; i++) analytics.track({ userId: 'u', event: `e${i}` });
    const closed = expect(analytics.close()).rejects.toMatchObject({ count: 3 });
    await settle();
    sent[0]!.fail(new KafkaUnavailableError('leader election'));
    await settle();
    time.advance(1_000);
    await closed;
    await expect(analytics.flush()).rejects.toMatchObject({ name: 'MessagesNotDeliveredError', count: 3 });
  });

  it('flush() after a close() that delivered everything resolves', async () => {
    const { analytics, ackAll } = setup();
    analytics.track({ userId: 'u', event: 'e' });
    const closed = analytics.close();
    await ackAll();
    await closed;
    await expect(analytics.flush()).resolves.toBeUndefined();
  });

  it('close() waits for a batch Kafka answers after its ack timeout: sent once, counted delivered', async () => {
    const ackTimeout = { afterMs: 50, error: () => new KafkaUnavailableError('no ack within 50 ms') };
    const errors: Error[] = [];
    const { analytics, sent, time, ackAll } = setup({ onError: (err) => errors.push(err) }, { ackTimeout });
    for (let i = 0; i < 3; i++) analytics.track({ userId: 'u', event: `e${i}` });
    const closed = analytics.close();
    await settle();
    time.advance(50);
    await settle();
    time.advance(1_000);
    await settle();
    expect(errors).toEqual([expect.any(KafkaUnavailableError)]);
    expect(sent).toHaveLength(1); // not sent again while the first copy may land
    await ackAll(); // Kafka answers at 1,050 ms
    await expect(closed).resolves.toBeUndefined();
    expect(sent).toHaveLength(1);
  });

  it('close() at its deadline counts a batch sent and still unanswered as in doubt', async () => {
    const ackTimeout = { afterMs: 50, error: () => new KafkaUnavailableError('no ack within 50 ms') };
    const { analytics, sent, time } = setup({ closeTimeoutMs: 1_000 }, { ackTimeout });
    for (let i = 0; i < 3; i++) analytics.track({ userId: 'u', event: `e${i}` });
    const closed = expect(analytics.close()).rejects.toMatchObject({ count: 3, inDoubt: 3 });
    await settle();
    time.advance(50);
    await settle();
    time.advance(950);
    await closed;
    expect(sent).toHaveLength(1);
  });

  it('onError hears, with each failure, whether its calls will be retried, how many, and their messageIds', async () => {
    const heard: unknown[] = [];
    const { analytics, sent, time } = setup({ flushAt: 2, onError: (_err, context) => heard.push(context) });
    const ids = [0, 1, 2, 3].map((i) => analytics.track({ userId: 'u', event: `e${i}` }));
    sent[0]!.fail(new KafkaUnavailableError('leader election'));
    await settle();
    time.advance(5_000); // sent again by the timer, and refused for good this time
    sent[1]!.fail(new UnencodableRecordError('bad record'));
    await settle();
    expect(heard).toEqual([
      { willRetry: true, count: 2, messageIds: ids.slice(0, 2) },
      { willRetry: false, count: 2, messageIds: ids.slice(0, 2) },
    ]);
  });

  it('close() sends the healthy batches behind one that failed for good, and counts only the dropped calls', async () => {
    const { analytics, sent, ackAll } = setup({ flushAt: 2 });
    for (let i = 0; i < 8; i++) analytics.track({ userId: 'u', event: `e${i}` }); // 4 batches of 2
    const closed = expect(analytics.close()).rejects.toMatchObject({
      count: 2,
      cause: expect.any(UnencodableRecordError),
    });
    sent[0]!.fail(new UnencodableRecordError('bad record'));
    Object.assign(sent[0]!, { done: true });
    await ackAll();
    await closed;
    expect(sent.map((s) => s.events.map((e) => (e.type === 'track' ? e.event : '')))).toEqual([
      ['e0', 'e1'],
      ['e2', 'e3'],
      ['e4', 'e5'],
      ['e6', 'e7'],
    ]);
    expect(analytics.queued).toBe(0);
  });
});

/** Compile-time contract: required fields are enforced by the types (checked by tsc, never run). */
export function typeContract(a: Analytics): void {
  // @ts-expect-error a userId or an anonymousId is required
  a.identify({ traits: { plan: 'pro' } });
  // @ts-expect-error track requires event
  a.track({ userId: 'u1' });
  // @ts-expect-error group requires groupId
  a.group({ anonymousId: 'a1' });
  // @ts-expect-error alias requires previousId
  a.alias({ userId: 'u1' });
  // @ts-expect-error alias requires userId (an anonymousId is not enough)
  a.alias({ anonymousId: 'a1', previousId: 'p1' });
  // @ts-expect-error timestamp is a Date or an ISO string
  a.page({ userId: 'u1', timestamp: 1_700_000_000_000 });
  // @ts-expect-error integrations values are booleans (or per-destination option objects)
  a.track({ userId: 'u1', event: 'e', integrations: { Webhooks: 'yes' } });
  a.track({
    anonymousId: 'a1',
    event: 'e',
    properties: { big: 1n, when: new Date(), nested: [{ ok: null }] },
  });
  a.page({ userId: 'u1' });
  a.alias({ userId: 'u1', previousId: 'p1' });
}
