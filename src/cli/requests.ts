import type { Command } from './args';

export interface ApiRequest {
  method: 'GET' | 'POST';
  /** Path and query, e.g. `/api/v1/dead-letters?destinationId=d1`. */
  path: string;
  body?: unknown;
}

const BASE = '/api/v1';

/** The admin API call a command makes (`help` makes none). */
export function requestFor(command: Exclude<Command, { name: 'help' }>): ApiRequest {
  switch (command.name) {
    case 'dlq-list':
      return get(`${BASE}/dead-letters`, {
        destinationId: command.destinationId,
        reason: command.reason,
        since: command.since,
        until: command.until,
        limit: command.limit,
      });
    case 'dlq-show':
      return get(`${BASE}/dead-letters/${encodeURIComponent(command.id)}`);
    case 'dlq-redrive':
      return {
        method: 'POST',
        path: `${BASE}/dead-letters/redrive`,
        body: withoutUndefined({
          destinationId: command.destinationId,
          since: command.since,
          until: command.until,
          taskIds: command.taskIds.length > 0 ? command.taskIds : undefined,
        }),
      };
    case 'attempts':
      return get(`${BASE}/destinations/${encodeURIComponent(command.destinationId)}/attempts`, {
        messageId: command.messageId,
        outcome: command.outcome,
        limit: command.limit,
      });
    case 'replay':
      return {
        method: 'POST',
        path: `${BASE}/destinations/${encodeURIComponent(command.destinationId)}/replay`,
        body: { since: command.since },
      };
    case 'replay-status':
      return get(`${BASE}/replays/${encodeURIComponent(command.id)}`);
    case 'secrets-reencrypt':
      return { method: 'POST', path: `${BASE}/secrets/reencrypt` };
  }
}

function get(path: string, query: Record<string, string | number | undefined> = {}): ApiRequest {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
  const text = params.toString();
  return { method: 'GET', path: text ? `${path}?${text}` : path };
}

function withoutUndefined(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));
}
