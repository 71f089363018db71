import os from 'node:os';
import type { Config } from '../../config/config';

/**
 * Where the other processes of a shared attempt index reach this one's admin API: the
 * configured HOOKLINE_ADVERTISED_URL; else, with the port the admin API bound, the configured
 * HOOKLINE_ADVERTISED_HOST or the address the admin API listens on (its own server's, else the
 * HTTP server's). A wildcard address (every interface) gives the host name instead, which the
 * others must then be able to resolve. An IPv6 address is bracketed.
 */
export function advertisedUrlFor(options: {
  configured: string | undefined;
  advertisedHost?: string;
  host: string;
  port: number;
  hostname?: () => string;
}): string {
  if (options.configured) return options.configured.replace(/\/+$/, '');
  const wildcard = options.host === '0.0.0.0' || options.host === '::' || options.host === '';
  const host = options.advertisedHost ?? (wildcard ? (options.hostname ?? os.hostname)() : options.host);
  return `http://${host.includes(':') ? `[${host}]` : host}:${options.port}`;
}

/**
 * How this process takes part in a shared attempt index (HOOKLINE_ATTEMPT_INDEX=shared): its
 * group, where the others reach its admin API (`adminPort`: the port that API is bound to), the
 * token they need, and the session timeout that decides how soon a dead member's share moves.
 */
export function sharedAttemptIndexSettings(config: Config, adminPort: number) {
  return {
    groupId: `${config.topics.prefix}.attempt-index`,
    advertisedUrl: advertisedUrlFor({
      configured: config.operations.advertisedUrl,
      advertisedHost: config.operations.advertisedHost,
      host: (config.adminHttp ?? config.http).host,
      port: adminPort,
    }),
    adminToken: config.adminToken,
    sessionTimeoutMs: config.kafka.sessionTimeoutMs,
  };
}
