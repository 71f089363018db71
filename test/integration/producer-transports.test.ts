import { stringifyJson } from '../../src/events/json';
import { Analytics, InvalidWriteKeyError, SourceDisabledError } from '../../src/producer';
import { eventually } from '../support/eventually';
import { startReceiver } from '../support/receiver';
import { useProducerHarness, type Json } from '../support/producer-harness';

/**
 * The producer library's write keys, its HTTP transport, and its events reaching a webhook receiver,
 * on a real Kafka + schema registry.
 */
describe('producer library: write keys and transports', () => {
  const h = useProducerHarness();
  const { clients, receivers, createSource, connect, waitForEvents } = h;

  it('refuses an unknown or disabled write key at connect, and calls once the source is disabled', async () => {
    await expect(connect('no-such-key')).rejects.toBeInstanceOf(InvalidWriteKeyError);
    const source = await createSource();
    const analytics = await connect(source.writeKey);
    expect((await h.app.admin('PATCH', `/api/v1/sources/${source.id}`, { enabled: false })).status).toBe(200);
    await eventually(() => {
      try {
        analytics.track({ userId: 'u', event: 'e' });
        return false;
      } catch (err) {
        return err instanceof SourceDisabledError;
      }
    });
    await expect(connect(source.writeKey)).rejects.toBeInstanceOf(SourceDisabledError);
  });

  it("with transport 'http' sends the same calls through the tracking API", async () => {
    const source = await createSource();
    await expect(
      Analytics.connect('no-such-key', { transport: 'http', endpoint: h.app.baseUrl, env: {} }),
    ).rejects.toBeInstanceOf(InvalidWriteKeyError);
    const analytics = await Analytics.connect(source.writeKey, {
      transport: 'http',
      endpoint: h.app.baseUrl,
      env: {},
    });
    clients.push(analytics);
    const ids = [
      analytics.track({ userId: 'h-1', event: 'Via HTTP', properties: { n: 12345678901234567890n } }),
      analytics.alias({ userId: 'h-1', previousId: 'a-9', timestamp: '2024-01-01T00:00:00.000Z' }),
    ];
    await analytics.flush();
    const [track, alias] = await waitForEvents(ids);
    expect(track!.event).toMatchObject({
      type: 'track',
      userId: 'h-1',
      event: 'Via HTTP',
      sourceId: source.id,
    });
    expect(stringifyJson(track!.event.type === 'track' && track!.event.properties)).toBe(
      '{"n":12345678901234567890}',
    );
    expect(track!.event).toHaveProperty('sentAt');
    expect(alias!.event).toMatchObject({
      type: 'alias',
      previousId: 'a-9',
      originalTimestamp: '2024-01-01T00:00:00.000Z',
    });
  });

  it('an event sent through the library reaches a webhook receiver through the normal delivery path', async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    const source = await createSource();
    const destination = await h.app.admin<Json>('POST', '/api/v1/destinations', {
      sourceId: source.id,
      name: 'Receiver',
      enabled: true,
      settings: { webhooks: [{ url: receiver.url }] },
    });
    expect(destination.status).toBe(201);
    const analytics = await connect(source.writeKey, { flushAt: 1 });
    const messageId = analytics.track({
      userId: 'u-hook',
      event: 'Delivered',
      properties: { orderId: 12345678901234567890n },
    });
    await analytics.flush();
    const request = await eventually(
      () => receiver.requests.find((r) => r.body.toString('utf8').includes(messageId)),
      { timeoutMs: 30_000, what: 'the webhook request' },
    );
    const body = request.body.toString('utf8');
    expect(JSON.parse(body)).toMatchObject({
      type: 'track',
      messageId,
      userId: 'u-hook',
      event: 'Delivered',
    });
    expect(body).toContain('"orderId":12345678901234567890');
  });
});
