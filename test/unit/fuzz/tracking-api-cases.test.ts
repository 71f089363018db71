import { startFuzzTarget } from './harness';

/**
 * Particular requests the tracking API once mishandled, over real HTTP, each named by the
 * behaviour it protects.
 */
describe('tracking API regressions', () => {
  let target: Awaited<ReturnType<typeof startFuzzTarget>>;
  beforeAll(async () => (target = await startFuzzTarget()));
  afterAll(() => target.close());

  const basic = (key: string) => `Basic ${Buffer.from(`${key}:`).toString('base64')}`;
  async function post(path: string, body: string) {
    const res = await fetch(`${target.baseUrl}${path}`, {
      method: 'POST',
      headers: { authorization: basic(target.writeKey), 'content-type': 'application/json' },
      body,
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  }
  /** The events a request produced to the events topic, decoded. */
  async function producedEvents(after: number) {
    const messages = target.produced.slice(after).filter((m) => m.topic === 'fuzz.events');
    return Promise.all(messages.map((m) => target.events.decode(m.value!)));
  }

  it('stores the events of the "batch" JSON.parse keeps when the key is also written with an escape', async () => {
    const before = target.produced.length;
    const body =
      '{"batch":[{"context":[1,2],"properties":{"who":"A"}}],' +
      '"b\\u0061tch":[{"type":"track","userId":"b","event":"B","context":{"ip":"1.2.3.4"},"properties":{"who":"B"}}]}';
    const res = await post('/v1/batch', body);
    expect(res).toEqual({ status: 200, json: { success: true } });
    const [event, ...rest] = await producedEvents(before);
    expect(rest).toEqual([]);
    expect(event).toMatchObject({ userId: 'b', context: { ip: '1.2.3.4' }, properties: { who: 'B' } });
  });
});
