import { Registry } from 'prom-client';
import type { AvroCodec } from '../../../src/avro/codec';
import { systemClock } from '../../../src/core/clock';
import type { DeliveryExecutorOptions } from '../../../src/delivery/executor';
import { createDeliveryMetrics } from '../../../src/delivery/metrics';
import { SettingsOpener } from '../../../src/delivery/secrets';
import { silentLogger } from '../../../src/observability/logger';
import type { CatalogView } from '../../../src/records/catalog-model';
import { SecretKeyring } from '../../../src/security/secrets';

/** The destination `d` the executor tests deliver to: one URL, no headers. */
export function testDestination(enabled = true) {
  return { id: 'd', enabled, settings: { webhooks: [{ url: 'http://127.0.0.1:9/hook', headers: {} }] } };
}

/**
 * A DeliveryExecutor's options for unit tests: destination `d` in the catalog, an Avro codec that
 * encodes anything to one byte, topics under `p`, a real secrets opener and metrics registry;
 * the test gives the parts it looks at (client, producer, dead letters, retry policy, clock).
 */
export function executorOptions(
  parts: Pick<DeliveryExecutorOptions, 'client' | 'producer' | 'deadLetters' | 'retryPolicy'> &
    Partial<DeliveryExecutorOptions> & { enabled?: boolean },
): DeliveryExecutorOptions {
  const { enabled, ...given } = parts;
  const destination = testDestination(enabled);
  return {
    catalog: { destination: () => destination } as unknown as CatalogView,
    avro: { encode: () => Buffer.alloc(1) } as unknown as AvroCodec,
    disableWebhook: async () => undefined,
    topicPrefix: 'p',
    attemptsTopic: 'p.attempts',
    deliveriesTopic: 'p.deliveries',
    secrets: new SettingsOpener({ opener: new SecretKeyring({ current: Buffer.alloc(32, 1) }) }),
    rotationOverlapMs: 0,
    metrics: createDeliveryMetrics(new Registry()),
    clock: systemClock,
    logger: silentLogger(),
    ...given,
  };
}
