import { CatalogConflictError } from '../../../src/catalog/errors';
import { CatalogService } from '../../../src/catalog/service';
import { CatalogStore } from '../../../src/catalog/store';
import { destinationCreateSchema, destinationPatchSchema } from '../../../src/catalog/validation';
import { silentLogger } from '../../../src/observability/logger';
import { SecretKeyring } from '../../../src/security/secrets';
import { LoopbackWriter } from './loopback';

const sealer = new SecretKeyring({ current: Buffer.alloc(32, 5) });
const whsec = (fill: number) => `whsec_${Buffer.alloc(24, fill).toString('base64')}`;
const settings = {
  sharedSecret: 's3cret',
  standardWebhooksSecret: whsec(1),
  webhooks: [
    { url: 'https://a.example/hook', headers: { Authorization: 'Bearer t0ken', 'X-Team': 'ops' } },
    { url: 'https://b.example/hook' },
  ],
  maxRequestsPerSecond: 10,
};

async function setup() {
  const store = new CatalogStore({ logger: silentLogger() });
  store.expect([{ partition: 0, low: '0', high: '0' }]);
  const writer = new LoopbackWriter(store);
  let now = Date.parse('2024-05-01T00:00:00.000Z');
  const clock = { now: () => (now += 1_000) };
  const service = new CatalogService({ store, writer, sealer, logger: silentLogger(), clock });
  const { source } = await service.createSource({ name: 'Web', enabled: true });
  const destination = await service.createDestination(
    destinationCreateSchema.parse({ sourceId: source.id, name: 'Hook', settings }),
  );
  return { service, writer, destination };
}

const patch = (value: object) => destinationPatchSchema.parse(value);

/** A PATCH that changes nothing bumped the version (and the ETag) and wrote a catalog record. */
describe('a destination PATCH that changes nothing', () => {
  it.each([
    ['the same name and enabled', { name: 'Hook', enabled: true }],
    ['the same secrets and rate limit', { settings: { sharedSecret: 's3cret', maxRequestsPerSecond: 10 } }],
    ['the same Standard Webhooks secret (no rotation)', { settings: { standardWebhooksSecret: whsec(1) } }],
    ['the same URLs and header values', { settings: { webhooks: settings.webhooks } }],
  ])('%s: answers the current destination, writes nothing', async (_what, body) => {
    const { service, writer, destination } = await setup();
    const written = writer.log.length;
    const answered = await service.updateDestination(destination.id, patch(body));
    expect(answered).toEqual(destination);
    expect(answered.version).toBe(1);
    expect(writer.log).toHaveLength(written);
  });

  it('keeps If-Match: a stale version is still 412, the current one answers the destination', async () => {
    const { service, destination } = await setup();
    await expect(
      service.updateDestination(destination.id, patch({ enabled: true }), { ifMatch: [0] }),
    ).rejects.toBeInstanceOf(CatalogConflictError);
    await expect(
      service.updateDestination(destination.id, patch({ enabled: true }), { ifMatch: [1] }),
    ).resolves.toEqual(destination);
  });

  it.each([
    ['another name', { name: 'Hook 2' }],
    ['another shared secret', { settings: { sharedSecret: 'other' } }],
    ['no shared secret', { settings: { sharedSecret: null } }],
    ['another Standard Webhooks secret', { settings: { standardWebhooksSecret: whsec(2) } }],
    [
      'another header value',
      {
        settings: {
          webhooks: [
            { ...settings.webhooks[0], headers: { Authorization: 'Bearer other', 'X-Team': 'ops' } },
            settings.webhooks[1],
          ],
        },
      },
    ],
    ['the URLs in another order', { settings: { webhooks: [...settings.webhooks].reverse() } }],
    ['no rate limit', { settings: { maxRequestsPerSecond: null } }],
  ])('still writes a real change: %s', async (_what, body) => {
    const { service, writer, destination } = await setup();
    const written = writer.log.length;
    const updated = await service.updateDestination(destination.id, patch(body));
    expect(updated.version).toBe(2);
    expect(writer.log).toHaveLength(written + 1);
  });
});

describe('a source PATCH that changes nothing', () => {
  it('answers the current source and writes nothing; a real change is a new version', async () => {
    const { service, writer } = await setup();
    const { source } = await service.createSource({ name: 'App', enabled: true });
    const written = writer.log.length;
    await expect(service.updateSource(source.id, { name: 'App', enabled: true })).resolves.toEqual(source);
    expect(writer.log).toHaveLength(written);
    await expect(service.updateSource(source.id, { enabled: false })).resolves.toMatchObject({ version: 2 });
    expect(writer.log).toHaveLength(written + 1);
  });
});
