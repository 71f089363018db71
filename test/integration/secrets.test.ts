import { createHmac, randomBytes } from 'node:crypto';
import { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import { Webhook } from 'standardwebhooks';
import { AvroCodec } from '../../src/avro/codec';
import { systemClock } from '../../src/core/clock';
import { silentLogger } from '../../src/observability/logger';
import { producerSchemas } from '../../src/producer/kafka-transport';
import { followSourcesOnly } from '../../src/producer/source';
import { CatalogRecordCodec, SOURCE_RECORD } from '../../src/records/catalog';
import type { Destination } from '../../src/records/catalog-model';
import { SecretKeyring } from '../../src/security/secrets';
import { runCli } from '../../src/cli/main';
import { ADMIN_TOKEN, clusterFromEnv, uniquePrefix, type TestApp } from '../support/app';
import { eventually } from '../support/eventually';
import { createDestination, createSource, sendTracking } from '../support/hookline';
import { testScope } from '../support/scope';
import { exited, spawnHookline } from '../support/process';
import { readTopic } from '../support/topics';

/**
 * Secrets at rest, on the real broker and registry: what the catalog topic holds, what receivers
 * get, records written by a version before encryption, and a key rotation across processes.
 */
const scope = testScope();
const newKey = () => randomBytes(32).toString('base64');
const hmac = (secret: string, body: Buffer) => createHmac('sha1', secret).update(body).digest('hex');

/** Every form in which a plaintext might leak into bytes: as is, base64, base64url, hex. */
function leakedForms(plain: string): Buffer[] {
  const bytes = Buffer.from(plain, 'utf8');
  return [bytes, ...(['base64', 'base64url', 'hex'] as const).map((e) => Buffer.from(bytes.toString(e)))];
}

async function expectNotOnCatalog(t: TestApp, plaintexts: string[]): Promise<number> {
  const records = await readTopic(t, `${t.prefix}.catalog`);
  for (const record of records) {
    for (const plain of plaintexts) {
      for (const form of leakedForms(plain)) expect(record.includes(form)).toBe(false);
    }
  }
  return records.length;
}

/** Writes a destination record straight to the catalog topic, as another (older) process would. */
async function writeDestinationRecord(
  t: TestApp,
  destination: Pick<Destination, 'id' | 'sourceId' | 'settings'>,
): Promise<void> {
  const now = new Date().toISOString();
  const value = { ...destination, name: 'written directly', enabled: true, createdAt: now, updatedAt: now };
  const producer = t.app.parts.kafka.producer();
  await producer.connect();
  try {
    await producer.send({
      topic: `${t.prefix}.catalog`,
      messages: [
        {
          key: destination.id,
          value: new CatalogRecordCodec(t.app.parts.avro).encode({ kind: 'destination', value }),
        },
      ],
    });
  } finally {
    await producer.disconnect();
  }
}

async function track(t: TestApp, writeKey: string, messageId: string): Promise<void> {
  const res = await sendTracking(t, writeKey, '/v1/track', { userId: 'u1', event: 'Paid', messageId });
  expect(res.status).toBe(200);
}

describe('secrets encrypted at rest', () => {
  it('never puts a secret or header value on the catalog topic; deliveries still carry them', async () => {
    const t = await scope.app();
    const r = await scope.receiver();
    const src = await createSource(t);
    const secret = `sh-${randomBytes(16).toString('hex')}`;
    const token = `Bearer ${randomBytes(16).toString('hex')}`;
    const standard = `whsec_${randomBytes(32).toString('base64')}`;
    const created = await t.admin<{ id: string; settings: unknown }>('POST', '/api/v1/destinations', {
      sourceId: src.id,
      name: 'hook',
      settings: {
        sharedSecret: secret,
        standardWebhooksSecret: standard,
        webhooks: [{ url: r.url, headers: { Authorization: token } }],
      },
    });
    expect(created.status).toBe(201);
    expect(JSON.stringify(created.body)).not.toContain(token);
    const read = await t.admin('GET', `/api/v1/destinations/${created.body.id}`);
    expect(JSON.stringify(read.body)).not.toContain(token);

    // The whsec_ secret, and its key bytes in base64 too (leakedForms covers the encodings).
    const standardKey = standard.slice('whsec_'.length);
    expect(await expectNotOnCatalog(t, [secret, token, standard, standardKey])).toBeGreaterThanOrEqual(2);
    const keyBytes = Buffer.from(standardKey, 'base64');
    for (const record of await readTopic(t, `${t.prefix}.catalog`))
      expect(record.includes(keyBytes)).toBe(false);

    await track(t, src.writeKey, 'm-at-rest');
    const req = await eventually(() => r.requests[0], { what: 'the delivery' });
    expect(req.headers['x-signature']).toBe(hmac(secret, req.body));
    expect(req.headers.authorization).toBe(token);
    const headers = Object.fromEntries(
      ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => [h, String(req.headers[h])]),
    );
    expect(() => new Webhook(standard).verify(req.body.toString('utf8'), headers)).not.toThrow();
  });

  it('reads plaintext records of an older version, and rotates keys across processes', async () => {
    const prefix = uniquePrefix();
    const oldKey = newKey();
    const currentKey = newKey();
    const r = await scope.receiver();

    // 1. A catalog written before encryption: a destination record with plaintext values.
    const before = await scope.app({ HOOKLINE_TOPIC_PREFIX: prefix, HOOKLINE_SECRETS_KEY: oldKey });
    const src = await createSource(before);
    const legacySecret = `legacy-${randomBytes(8).toString('hex')}`;
    const legacyHeader = `legacy-h-${randomBytes(8).toString('hex')}`;
    await writeDestinationRecord(before, {
      id: 'dst_legacy',
      sourceId: src.id,
      settings: {
        sharedSecret: legacySecret,
        webhooks: [{ url: r.url, headers: { 'X-Key': legacyHeader } }],
      },
    });
    await eventually(() => before.app.parts.catalog.destination('dst_legacy'), { what: 'the legacy record' });
    await track(before, src.writeKey, 'm-legacy');
    const first = await eventually(() => r.requests[0], { what: 'a delivery from the legacy record' });
    expect(first.headers['x-signature']).toBe(hmac(legacySecret, first.body));
    expect(first.headers['x-key']).toBe(legacyHeader);
    // Re-encrypted under the (old) current key: the plaintext is gone from the latest record.
    expect(await before.admin('POST', '/api/v1/secrets/reencrypt')).toEqual({
      status: 200,
      body: { reencrypted: 1, unchanged: 0, unreadable: [] },
    });
    await scope.stop(before);

    // 2. Rolled out with a new key, the old one as previous: values sealed with it still open.
    const rotating = await scope.app({
      HOOKLINE_TOPIC_PREFIX: prefix,
      HOOKLINE_SECRETS_KEY: currentKey,
      HOOKLINE_SECRETS_KEY_PREVIOUS: oldKey,
    });
    await track(rotating, src.writeKey, 'm-rotating');
    const second = await eventually(() => r.requests[1], { what: 'a delivery during the rotation' });
    expect(second.headers['x-signature']).toBe(hmac(legacySecret, second.body));
    // Through the CLI this time: `hookline secrets reencrypt`.
    let out = '';
    const code = await runCli(['secrets', 'reencrypt'], {
      env: { HOOKLINE_URL: rotating.baseUrl, HOOKLINE_ADMIN_TOKEN: ADMIN_TOKEN },
      fetch,
      stdout: (text) => void (out += text),
      stderr: (text) => void (out += text),
      now: Date.now,
      sleep: async () => undefined,
    });
    expect([code, JSON.parse(out)]).toEqual([0, { reencrypted: 1, unchanged: 0, unreadable: [] }]);
    await scope.stop(rotating);

    // 3. The old key retired: everything was re-encrypted, so deliveries go on.
    const after = await scope.app({ HOOKLINE_TOPIC_PREFIX: prefix, HOOKLINE_SECRETS_KEY: currentKey });
    await track(after, src.writeKey, 'm-after');
    const third = await eventually(() => r.requests[2], { what: 'a delivery after the rotation' });
    expect(third.headers['x-signature']).toBe(hmac(legacySecret, third.body));
    expect(third.headers['x-key']).toBe(legacyHeader);
    const latest = await readTopic(after, `${prefix}.catalog`);
    // Compaction may not have run: only records after the first re-encryption are plaintext-free.
    const lastOfLegacy = latest.filter((v) => v.includes(Buffer.from('dst_legacy'))).at(-1)!;
    for (const plain of [legacySecret, legacyHeader])
      for (const form of leakedForms(plain)) expect(lastOfLegacy.includes(form)).toBe(false);
  });

  it('dead-letters, never sends, a task whose destination secrets were sealed with an unknown key', async () => {
    const t = await scope.app();
    const r = await scope.receiver();
    const src = await createSource(t);
    const foreign = new SecretKeyring({ current: randomBytes(32) });
    await writeDestinationRecord(t, {
      id: 'dst_foreign',
      sourceId: src.id,
      settings: { sharedSecret: foreign.seal('s'), webhooks: [{ url: r.url, headers: {} }] },
    });
    await eventually(() => t.app.parts.catalog.destination('dst_foreign'), { what: 'the record' });
    await track(t, src.writeKey, 'm-foreign');
    const dead = await eventually(
      async () => {
        const res = await t.admin<{ deadLetters: { reason: string }[] }>(
          'GET',
          '/api/v1/dead-letters?destinationId=dst_foreign',
        );
        return res.body.deadLetters[0];
      },
      { what: 'the dead letter' },
    );
    expect(dead.reason).toBe('secret_unreadable');
    expect(r.requests).toHaveLength(0);
  });

  it('gives the producer library a catalog of sources only: no destination record is decoded', async () => {
    const t = await scope.app();
    const src = await createSource(t);
    await createDestination(t, {
      sourceId: src.id,
      sharedSecret: 'producer-must-not-see',
      webhooks: [{ url: 'https://example.com/hook', headers: { Authorization: 'Bearer nope' } }],
    });
    const avro = await AvroCodec.create({
      registry: new SchemaRegistry({ host: clusterFromEnv().schemaRegistryUrl }),
      schemas: producerSchemas(),
      logger: silentLogger(),
    });
    const decoded: string[] = [];
    const decode = avro.decode.bind(avro);
    avro.decode = async (bytes) => {
      const record = await decode(bytes);
      decoded.push(record.name);
      return record;
    };
    const { store, materialiser } = await followSourcesOnly({
      kafka: t.app.parts.kafka,
      admin: t.app.parts.admin,
      avro,
      topic: `${t.prefix}.catalog`,
      clientId: `producer-view-${t.prefix}`,
      logger: silentLogger(),
      clock: systemClock,
    });
    try {
      await store.whenReady();
      expect(store.sourceByWriteKey(src.writeKey)?.id).toBe(src.id);
      expect(store.destinations()).toEqual([]);
      expect(decoded).toEqual([SOURCE_RECORD]);
    } finally {
      await materialiser.stop();
    }
  });

  it('the production entry point refuses to start without HOOKLINE_SECRETS_KEY (exit 2)', async () => {
    const child = spawnHookline({
      HOOKLINE_SECRETS_KEY: undefined,
      HOOKLINE_SECRETS_KEY_PREVIOUS: undefined,
    });
    expect(await exited(child)).toBe(2);
    expect(child.output.join('')).toContain('HOOKLINE_SECRETS_KEY: required');
  });
});
