import { sampleEvents } from '../fixtures/events';
import { uniquePrefix } from '../support/app';
import { eventually } from '../support/eventually';
import {
  SHARED_SECRET,
  createDestination,
  createSource,
  hook,
  startProcess,
  stopProcessesAfterEach,
  type ApiResponse,
  type Json,
  type Process,
} from '../support/catalog-process';

/** What processes started before or after a catalog change see of it, on a real Kafka + schema registry. */
stopProcessesAfterEach();

describe('catalog across processes', () => {
  it('a process started after a change sees it once ready', async () => {
    const prefix = uniquePrefix();
    const a = await startProcess(prefix);
    const source = await createSource(a);
    const destination = await createDestination(a, source.id, {
      sharedSecret: SHARED_SECRET,
      webhooks: [hook('https://example.com/in')],
    });
    const removed = await createSource(a, 'Removed');
    expect((await a.call('DELETE', `/api/v1/sources/${removed.id}`)).status).toBe(204);

    const b = await startProcess(prefix);
    // Ready means caught up: no polling needed.
    expect((await b.call('GET', `/api/v1/sources/${source.id}`)).body).toEqual({
      ...source,
      writeKey: undefined,
    });
    expect((await b.call('GET', `/api/v1/destinations/${destination.id}`)).body).toEqual(destination);
    expect((await b.call('GET', `/api/v1/sources/${removed.id}`)).status).toBe(404);
    expect(b.app.parts.catalog.sourceByWriteKey(source.writeKey)?.id).toBe(source.id);
    const stored = b.app.parts.catalog.destination(destination.id)!.settings.sharedSecret!;
    expect(b.app.parts.config.secrets.keyring!.open(stored)).toBe(SHARED_SECRET);
  });

  it('a process already running follows changes made through another, tombstones included', async () => {
    const prefix = uniquePrefix();
    const [a, b] = await Promise.all([startProcess(prefix), startProcess(prefix)]);
    const seenByB = (path: string, check: (res: ApiResponse) => boolean) =>
      eventually(async () => check(await b.call('GET', path)), { what: `process B: ${path}` });

    const source = await createSource(a);
    const destination = await createDestination(a, source.id);
    await seenByB(`/api/v1/destinations/${destination.id}`, (res) => res.status === 200);
    expect(b.app.parts.catalog.sourceByWriteKey(source.writeKey)?.id).toBe(source.id);

    // A change made through B reaches A too.
    await b.call('PATCH', `/api/v1/destinations/${destination.id}`, { name: 'Renamed by B' });
    await eventually(
      async () =>
        (await a.call('GET', `/api/v1/destinations/${destination.id}`)).body.name === 'Renamed by B',
      { what: 'process A sees the rename' },
    );

    expect((await a.call('DELETE', `/api/v1/sources/${source.id}?cascade=true`)).status).toBe(204);
    expect((await a.call('GET', `/api/v1/sources/${source.id}`)).status).toBe(404);
    await seenByB(`/api/v1/sources/${source.id}`, (res) => res.status === 404);
    await seenByB(`/api/v1/destinations/${destination.id}`, (res) => res.status === 404);
    expect(b.app.parts.catalog.destinationsOfSource(source.id)).toEqual([]);

    const c = await startProcess(prefix);
    expect((await c.call('GET', '/api/v1/sources')).body).toEqual({ sources: [] });
    expect((await c.call('GET', '/api/v1/destinations')).body).toEqual({ destinations: [] });
  });

  it('skips an undecodable catalog record without stopping, at start or live', async () => {
    const prefix = uniquePrefix();
    const a = await startProcess(prefix);
    await createSource(a, 'Before');

    const producer = a.app.parts.kafka.producer();
    await producer.connect();
    try {
      await producer.send({
        topic: a.app.parts.topics.catalog,
        acks: -1,
        messages: [
          { key: 'src_garbage', value: Buffer.from('not avro at all') },
          { key: 'src_unknown_schema', value: Buffer.from([0, 0x7f, 0xff, 0xff, 0xf0, 2, 3]) },
          { key: 'src_not_catalog', value: a.app.parts.events.encode(sampleEvents()[0]!) },
        ],
      });
    } finally {
      await producer.disconnect();
    }
    const after = await createSource(a, 'After');
    expect((await a.call('GET', `/api/v1/sources/${after.id}`)).status).toBe(200);

    const b = await startProcess(prefix);
    const names = (await b.call('GET', '/api/v1/sources')).body.sources.map((s: Json) => s.name);
    expect(names).toEqual(['Before', 'After']);
    // A skipped them live (its next write waited for a later offset), B while replaying.
    const skips = (p: Process) =>
      p.logs.filter((line) => line.includes('skipping undecodable catalog record'));
    expect(skips(a)).toHaveLength(3);
    expect(skips(b)).toHaveLength(3);
    expect(skips(b).join('')).toContain('src_unknown_schema');
  });
});
