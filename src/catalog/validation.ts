import { z } from 'zod';
import { RESERVED_HEADERS } from '../records/catalog-model';
import {
  STANDARD_WEBHOOKS_MAX_KEY_BYTES,
  STANDARD_WEBHOOKS_MIN_KEY_BYTES,
  standardWebhooksKey,
} from '../security/standard-webhooks';

/**
 * Request schemas of the admin API. They validate requests and, through `z.toJSONSchema`, are the
 * OpenAPI document's request bodies: one definition for both.
 *
 * Custom checks report a stable `params.code` (e.g. `header_reserved`), surfaced as the issue code
 * in 400 answers. Messages never quote a submitted value: URLs, header values and secrets may
 * carry credentials.
 */

export const MAX_WEBHOOKS = 5;
export const MAX_HEADERS = 20;
const MAX_URL_CHARS = 2_048;
const MAX_HEADER_NAME_CHARS = 256;
const MAX_HEADER_VALUE_CHARS = 8_192;
const MAX_NAME_CHARS = 200;
const MAX_SECRET_CHARS = 1_024;
/**
 * What reads show instead of a static header value. Refused as a value on writes, so that a client
 * sending back a destination it read cannot replace a real credential with the placeholder.
 */
export const REDACTED_HEADER_VALUE = '[redacted]';

/** RFC 9110 `token`: the characters allowed in a header name. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** What Node's HTTP client refuses in a header value: controls (CR, LF, NUL...) other than tab, and non-Latin-1. */
const INVALID_HEADER_VALUE_CHAR = /[^\t\x20-\x7e\x80-\xff]/;

const name = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(MAX_NAME_CHARS, `must be at most ${MAX_NAME_CHARS} characters`);

const webhookUrl = z
  .string()
  .max(MAX_URL_CHARS, `must be at most ${MAX_URL_CHARS} characters`)
  .transform((value, ctx) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      // An http(s) URL without a host ("http://", "https://:443/") does not parse either.
      ctx.addIssue({
        code: 'custom',
        message: 'must be an absolute http(s) URL with a host',
        params: { code: 'webhook_url_invalid' },
      });
      return z.NEVER;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      ctx.addIssue({
        code: 'custom',
        message: 'scheme must be http or https',
        params: { code: 'webhook_url_scheme' },
      });
      return z.NEVER;
    }
    // Delivery calls the URL's origin, path and query: credentials in it would be dropped and the
    // receiver answer 401. Refused, so what is accepted is what is sent.
    if (url.username !== '' || url.password !== '') {
      ctx.addIssue({
        code: 'custom',
        message:
          'must not contain credentials (user:password@); send them as a static Authorization header instead',
        params: { code: 'webhook_url_credentials' },
      });
      return z.NEVER;
    }
    return url.href;
  })
  .meta({
    description:
      'Absolute http or https URL (stored normalised), without credentials (user:password@: use a static ' +
      'Authorization header). A host that is an internal IP address (loopback, ' +
      'private, link-local, ...) is refused with 400, and a name that resolves to one is refused at delivery.',
    format: 'uri',
  });

/**
 * zod leaves a `__proto__` key out of a record's output (a guard against prototype pollution), so
 * checks on the parsed headers never see it: a header of that name was accepted and silently
 * dropped, whatever its value. Refused on the raw input instead (JSON.parse keeps it as an own key).
 */
function refuseProtoHeader(value: unknown, ctx: z.RefinementCtx): unknown {
  if (typeof value === 'object' && value !== null && Object.hasOwn(value, '__proto__')) {
    ctx.addIssue({
      code: 'custom',
      path: ['__proto__'],
      message: 'header name __proto__ is not accepted',
      params: { code: 'header_name_invalid' },
    });
  }
  return value;
}

const headerRecord = z
  .record(z.string(), z.string())
  .superRefine((value, ctx) => {
    const entries = Object.entries(value);
    if (entries.length > MAX_HEADERS) {
      ctx.addIssue({
        code: 'custom',
        message: `at most ${MAX_HEADERS} headers`,
        params: { code: 'too_many_headers' },
      });
    }
    const seen = new Set<string>();
    for (const [headerName, headerValue] of entries) {
      const issue = headerIssue(headerName, headerValue, seen);
      if (issue)
        ctx.addIssue({
          code: 'custom',
          path: [headerName],
          message: issue.message,
          params: { code: issue.code },
        });
      seen.add(headerName.toLowerCase());
    }
  })
  .meta({
    description:
      `Static headers sent with every request to this URL (at most ${MAX_HEADERS}). Names Hookline or its ` +
      `HTTP client set are refused (case-insensitively): ${RESERVED_HEADERS.join(', ')}. Names are HTTP ` +
      'tokens, `__proto__` excepted.',
  });

const headers = z.preprocess(refuseProtoHeader, headerRecord);

function headerIssue(
  headerName: string,
  value: string,
  seen: Set<string>,
): { code: string; message: string } | undefined {
  const lower = headerName.toLowerCase();
  if (headerName.length > MAX_HEADER_NAME_CHARS || !HEADER_NAME.test(headerName)) {
    return {
      code: 'header_name_invalid',
      message: "header name must be an HTTP token (letters, digits, !#$%&'*+-.^_`|~)",
    };
  }
  if (RESERVED_HEADERS.includes(lower)) {
    return {
      code: 'header_reserved',
      message: `header ${headerName} is set by Hookline or its HTTP client and cannot be given`,
    };
  }
  if (seen.has(lower)) {
    return {
      code: 'header_duplicate',
      message: `header ${headerName} is given twice (names are case-insensitive)`,
    };
  }
  if (value === REDACTED_HEADER_VALUE) {
    return {
      code: 'header_value_redacted',
      message: `value of header ${headerName} is the placeholder reads show; send the real value`,
    };
  }
  if (value.length > MAX_HEADER_VALUE_CHARS || INVALID_HEADER_VALUE_CHAR.test(value)) {
    return {
      code: 'header_value_invalid',
      message: `value of header ${headerName} must be at most ${MAX_HEADER_VALUE_CHARS} Latin-1 characters without CR, LF, NUL or other controls`,
    };
  }
  return undefined;
}

export const webhookEntrySchema = z.strictObject({
  url: webhookUrl,
  headers: headers.optional().default({}),
});

const webhooks = z
  .array(webhookEntrySchema)
  .min(1, `needs 1 to ${MAX_WEBHOOKS} webhooks`)
  .max(MAX_WEBHOOKS, `needs 1 to ${MAX_WEBHOOKS} webhooks`)
  .meta({ description: `1 to ${MAX_WEBHOOKS} URLs, tried in order; the first success wins.` });

const sharedSecret = z
  .string()
  .min(1, 'must not be empty')
  .max(MAX_SECRET_CHARS, `must be at most ${MAX_SECRET_CHARS} characters`)
  .meta({
    description:
      'When set, every delivery carries X-Signature = hex HMAC-SHA1(sharedSecret, body). Write-only.',
    writeOnly: true,
  });

/**
 * The lowest rate limit: one event every 100 s. Any positive number was accepted, and a limit like
 * 1e-300 never earned a token: the destination's tasks were deferred forever.
 */
export const MIN_REQUESTS_PER_SECOND = 0.01;
const MAX_REQUESTS_PER_SECOND = 100_000;

const maxRequestsPerSecond = z
  .number()
  .min(MIN_REQUESTS_PER_SECOND, `must be at least ${MIN_REQUESTS_PER_SECOND} (one event every 100 s)`)
  .max(MAX_REQUESTS_PER_SECOND, `must be at most ${MAX_REQUESTS_PER_SECOND}`)
  .meta({
    description:
      `${MIN_REQUESTS_PER_SECOND} (one event every 100 s) to ${MAX_REQUESTS_PER_SECOND}. ` +
      'Events per second Hookline delivers to this destination at most, across all workers and replicas (a burst of a tenth of a second allowed). Each tries the URLs in order until one answers 2xx, so while the first ones fail the URLs together may receive up to one request per URL per event. Work beyond it waits; it is never dropped.',
  });

const standardWebhooksSecret = z
  .string()
  .max(MAX_SECRET_CHARS, `must be at most ${MAX_SECRET_CHARS} characters`)
  .refine((value) => standardWebhooksKey(value) !== undefined, {
    message: `must be whsec_ followed by the base64 of a ${STANDARD_WEBHOOKS_MIN_KEY_BYTES} to ${STANDARD_WEBHOOKS_MAX_KEY_BYTES} byte key`,
    params: { code: 'standard_webhooks_secret_invalid' },
  })
  .meta({
    description:
      'When set (whsec_ + base64 of a 24–64 byte key), every delivery also carries the Standard Webhooks headers webhook-id, webhook-timestamp and webhook-signature. Write-only.',
    writeOnly: true,
  });

const emptyPatch = (value: object) => Object.keys(value).length > 0;
const emptyPatchIssue = { message: 'nothing to change', params: { code: 'empty_patch' } };

export const sourceCreateSchema = z
  .strictObject({ name, enabled: z.boolean().default(true) })
  .meta({ id: 'SourceCreate', description: 'A new source. Its write key is generated.' });

export const sourcePatchSchema = z
  .strictObject({ name: name.optional(), enabled: z.boolean().optional() })
  .refine(emptyPatch, emptyPatchIssue)
  .meta({ id: 'SourcePatch', description: 'Fields to change; absent fields keep their value.' });

export const destinationCreateSchema = z
  .strictObject({
    sourceId: z.string().min(1, 'must not be empty'),
    name,
    enabled: z.boolean().default(true),
    settings: z.strictObject({
      sharedSecret: sharedSecret.nullish(),
      standardWebhooksSecret: standardWebhooksSecret.nullish(),
      webhooks,
      maxRequestsPerSecond: maxRequestsPerSecond.nullish(),
    }),
  })
  .meta({ id: 'DestinationCreate', description: 'A new Webhooks destination of an existing source.' });

export const destinationPatchSchema = z
  .strictObject({
    name: name.optional(),
    enabled: z.boolean().optional(),
    settings: z
      .strictObject({
        sharedSecret: sharedSecret
          .nullable()
          .optional()
          .meta({ description: 'A new secret; null removes it; absent keeps it.' }),
        standardWebhooksSecret: standardWebhooksSecret.nullable().optional().meta({
          description:
            'A new secret; the previous one also signs for HOOKLINE_SECRET_ROTATION_OVERLAP (default 24 h). null removes both; absent, or the secret already set, keeps them.',
        }),
        webhooks: webhooks.optional().meta({ description: 'Replaces the whole list when given.' }),
        maxRequestsPerSecond: maxRequestsPerSecond
          .nullable()
          .optional()
          .meta({ description: 'A new limit; null removes it; absent keeps it.' }),
      })
      .optional(),
  })
  .refine(emptyPatch, emptyPatchIssue)
  .meta({ id: 'DestinationPatch', description: 'Fields to change; absent fields keep their value.' });

export type SourceCreate = z.output<typeof sourceCreateSchema>;
export type SourcePatch = z.output<typeof sourcePatchSchema>;
export type DestinationCreate = z.output<typeof destinationCreateSchema>;
export type DestinationPatch = z.output<typeof destinationPatchSchema>;
