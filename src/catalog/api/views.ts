import { z } from 'zod';
import type { Destination, Source } from '../../records/catalog-model';
import { urlWithoutPassword } from '../../observability/redact';
import { REDACTED_HEADER_VALUE } from '../validation';

/**
 * What the admin API returns. These schemas document the responses in the OpenAPI document and
 * type the mapping functions; a secret has no field here, so it cannot leak into a response, and
 * static header values (stored sealed, often credentials) read as REDACTED_HEADER_VALUE.
 */
const timestamp = z.string().meta({ format: 'date-time', description: 'ISO 8601 UTC.' });
const timestamps = { createdAt: timestamp, updatedAt: timestamp };
const version = z
  .number()
  .int()
  .meta({
    description:
      'The entity’s version: 1 at creation, +1 per change (0: last written before versions existed). ' +
      'Also the ETag of a read, `"<version>"`; send it back as If-Match to change the entity only if unchanged.',
  });

export const sourceViewSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    enabled: z.boolean(),
    writeKeyPrefix: z
      .string()
      .optional()
      .meta({ description: 'First characters of the write key, to tell keys apart.' }),
    version,
    ...timestamps,
  })
  .meta({ id: 'Source' });

export const sourceCreatedSchema = sourceViewSchema
  .extend({ writeKey: z.string().meta({ description: 'The write key. Returned only here: store it now.' }) })
  .meta({ id: 'SourceCreated' });

const circuitSchema = z.object({
  state: z.enum(['closed', 'open', 'half_open']).meta({
    description: 'closed: called; open: skipped after repeated failures; half_open: a few probe requests.',
  }),
  since: timestamp
    .optional()
    .meta({ description: 'When it entered this state; absent before the first call.' }),
  lastError: z.string().optional().meta({ description: 'The last failure that counted against the URL.' }),
});

/** The circuit breakers of a destination's URLs (the delivery worker's, when this process runs one). */
export interface CircuitReader {
  views(destinationId: string, urls: readonly string[]): z.output<typeof circuitSchema>[];
}

export const destinationViewSchema = z
  .object({
    id: z.string(),
    sourceId: z.string(),
    name: z.string(),
    enabled: z.boolean(),
    settings: z.object({
      sharedSecretSet: z
        .boolean()
        .meta({ description: 'Whether a shared secret is set; the secret is never returned.' }),
      maxRequestsPerSecond: z.number().optional().meta({ description: 'The rate limit, when set.' }),
      standardWebhooksSecretSet: z
        .boolean()
        .meta({ description: 'Whether a Standard Webhooks secret is set; the secret is never returned.' }),
      standardWebhooksRotatedAt: z.string().optional().meta({
        format: 'date-time',
        description:
          'When the Standard Webhooks secret last replaced another; the previous one also signs until this + HOOKLINE_SECRET_ROTATION_OVERLAP.',
      }),
      webhooks: z.array(
        z.object({
          url: z.string(),
          headers: z.record(z.string(), z.string()).meta({
            description: `Header names; values are write-only and read as "${REDACTED_HEADER_VALUE}" (they often carry credentials).`,
          }),
          disabled: z
            .object({ at: z.string(), reason: z.string() })
            .optional()
            .meta({ description: 'Present when Hookline stopped calling this URL (it answered 410 Gone).' }),
          circuit: circuitSchema
            .optional()
            .meta({ description: 'Circuit breaker of this URL, as the answering process sees it.' }),
        }),
      ),
    }),
    version,
    ...timestamps,
  })
  .meta({ id: 'Destination' });

export const sourceListSchema = z.object({ sources: z.array(sourceViewSchema) }).meta({ id: 'SourceList' });
export const destinationListSchema = z
  .object({ destinations: z.array(destinationViewSchema) })
  .meta({ id: 'DestinationList' });

export const reencryptResultSchema = z
  .object({
    reencrypted: z.number().int().meta({ description: 'Destinations rewritten under the current key.' }),
    unchanged: z.number().int().meta({ description: 'Destinations already entirely under the current key.' }),
    unreadable: z.array(z.string()).meta({
      description:
        'Ids of destinations not rewritten: a value of theirs opens with neither HOOKLINE_SECRETS_KEY nor HOOKLINE_SECRETS_KEY_PREVIOUS (the reason is logged). Set those values again, or delete the destination.',
    }),
  })
  .meta({ id: 'ReencryptResult' });

export type SourceView = z.output<typeof sourceViewSchema>;
export type DestinationView = z.output<typeof destinationViewSchema>;

export function sourceView(source: Source): SourceView {
  const view: SourceView = {
    id: source.id,
    name: source.name,
    enabled: source.enabled,
    version: source.version ?? 0,
    createdAt: source.createdAt,
    updatedAt: source.updatedAt,
  };
  if (source.writeKeyPrefix) view.writeKeyPrefix = source.writeKeyPrefix;
  return view;
}

export function destinationView(destination: Destination, circuits?: CircuitReader): DestinationView {
  const { webhooks } = destination.settings;
  const states = circuits?.views(
    destination.id,
    webhooks.map((w) => w.url),
  );
  return {
    id: destination.id,
    sourceId: destination.sourceId,
    name: destination.name,
    enabled: destination.enabled,
    settings: {
      sharedSecretSet: destination.settings.sharedSecret !== undefined,
      ...(destination.settings.maxRequestsPerSecond !== undefined && {
        maxRequestsPerSecond: destination.settings.maxRequestsPerSecond,
      }),
      standardWebhooksSecretSet: destination.settings.standardWebhooksSecret !== undefined,
      ...(destination.settings.standardWebhooksPrevious && {
        standardWebhooksRotatedAt: destination.settings.standardWebhooksPrevious.rotatedAt,
      }),
      webhooks: webhooks.map((w, i) => ({
        ...w,
        url: urlWithoutPassword(w.url),
        headers: Object.fromEntries(Object.keys(w.headers).map((name) => [name, REDACTED_HEADER_VALUE])),
        ...(states && { circuit: states[i]! }),
      })),
    },
    version: destination.version ?? 0,
    createdAt: destination.createdAt,
    updatedAt: destination.updatedAt,
  };
}
