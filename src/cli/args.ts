import { parseDurationMs } from '../config/env';

export type Command =
  | {
      name: 'dlq-list';
      destinationId?: string;
      reason?: string;
      since?: string;
      until?: string;
      limit?: number;
    }
  | { name: 'dlq-show'; id: string }
  | { name: 'dlq-redrive'; destinationId?: string; since?: string; until?: string; taskIds: string[] }
  | { name: 'attempts'; destinationId: string; messageId?: string; outcome?: string; limit?: number }
  | { name: 'replay'; destinationId: string; since: string; wait: boolean }
  | { name: 'replay-status'; id: string }
  | { name: 'secrets-reencrypt' }
  | { name: 'help' };

export interface Invocation {
  command: Command;
  /** Print the API's JSON instead of a table. */
  json: boolean;
}

/** Bad command-line words: the CLI prints the message and the usage, and exits with 2. */
export class UsageError extends Error {}

export const USAGE = `Usage: hookline <command> [options]

  dlq list [--destination ID] [--reason R] [--since T] [--until T] [--limit N]
  dlq show <taskId>
  dlq redrive [--destination ID] [--since T] [--until T] [--task ID]... | --all
  attempts <destinationId> [--message-id M] [--outcome O] [--limit N]
  replay <destinationId> --since T [--wait]
  replay status <replayId>
  secrets reencrypt

  secrets reencrypt rewrites every destination under HOOKLINE_SECRETS_KEY (after a key rotation,
  or to seal values written before encryption).

  T is an ISO 8601 time with Z or an offset (2024-05-01T10:00:00Z), a date (midnight UTC) or a
  duration ago (30m, 2h, 1d).
  O is delivered, retry_scheduled, dead_lettered or deferred.
  --json prints the API's JSON answer instead of a table.

Environment: HOOKLINE_URL (default http://127.0.0.1:8080), HOOKLINE_ADMIN_TOKEN.`;

/** Which options each command takes; `true` = takes a value, `false` = a flag. */
const OPTIONS: Record<string, Record<string, boolean>> = {
  'dlq-list': { destination: true, reason: true, since: true, until: true, limit: true },
  'dlq-show': {},
  'dlq-redrive': { destination: true, since: true, until: true, task: true, all: false },
  attempts: { 'message-id': true, outcome: true, limit: true },
  replay: { since: true, wait: false },
  'replay-status': {},
  'secrets-reencrypt': {},
  help: {},
};

/** Parses the words after `hookline`. Times are turned into ISO strings against `nowMs`. */
export function parseArgs(argv: string[], nowMs: number): Invocation {
  const { positional, options, json } = split(argv);
  const [first, second, ...rest] = positional;
  const name = commandName(first, second);
  const args =
    name === 'dlq-list' ||
    name === 'dlq-show' ||
    name === 'dlq-redrive' ||
    name === 'replay-status' ||
    name === 'secrets-reencrypt'
      ? rest
      : [second, ...rest].filter((a) => a !== undefined);
  for (const key of options.keys()) {
    if (!(key in OPTIONS[name]!)) throw new UsageError(`unknown option --${key} for this command`);
  }
  const value = (key: string): string | undefined => {
    const values = options.get(key);
    if (values === undefined) return undefined;
    const last = values[values.length - 1]!;
    if (OPTIONS[name]![key] && last === true) throw new UsageError(`--${key} needs a value`);
    return last === true ? undefined : last;
  };
  const time = (key: string) => {
    const text = value(key);
    return text === undefined ? undefined : parseTime(text, nowMs);
  };
  const limit = () => {
    const text = value('limit');
    if (text === undefined) return undefined;
    if (!/^\d+$/.test(text)) throw new UsageError(`--limit takes a whole number, not '${text}'`);
    return Number(text);
  };
  const one = (what: string) => {
    if (args.length !== 1) throw new UsageError(`expected ${what}`);
    return args[0]!;
  };
  const none = () => {
    if (args.length > 0) throw new UsageError(`unexpected argument '${args[0]}'`);
  };

  const command = ((): Command => {
    switch (name) {
      case 'help':
        return { name };
      case 'dlq-list':
        none();
        return {
          name,
          destinationId: value('destination'),
          reason: value('reason'),
          since: time('since'),
          until: time('until'),
          limit: limit(),
        };
      case 'dlq-show':
        return { name, id: one('a task id') };
      case 'dlq-redrive': {
        none();
        const taskIds = (options.get('task') ?? []).filter((v): v is string => v !== true);
        const filtered = ['destination', 'since', 'until', 'task'].some((k) => options.has(k));
        if (!filtered && !options.has('all')) {
          throw new UsageError('dlq redrive without --destination, --since, --until or --task needs --all');
        }
        if (filtered && options.has('all')) throw new UsageError('--all cannot be combined with filters');
        return {
          name,
          destinationId: value('destination'),
          since: time('since'),
          until: time('until'),
          taskIds,
        };
      }
      case 'attempts':
        return {
          name,
          destinationId: one('a destination id'),
          messageId: value('message-id'),
          outcome: value('outcome'),
          limit: limit(),
        };
      case 'replay': {
        const destinationId = one('a destination id');
        const since = time('since');
        if (since === undefined) throw new UsageError('replay needs --since');
        return { name, destinationId, since, wait: options.has('wait') };
      }
      case 'replay-status':
        return { name, id: one('a replay id') };
      case 'secrets-reencrypt':
        none();
        return { name };
    }
  })();
  return { command, json };
}

function commandName(first: string | undefined, second: string | undefined): Command['name'] {
  if (first === undefined || first === 'help') return 'help';
  if (first === 'dlq') {
    if (second === 'list' || second === 'show' || second === 'redrive') return `dlq-${second}`;
    throw new UsageError(`dlq takes list, show or redrive${second ? `, not '${second}'` : ''}`);
  }
  if (first === 'replay' && second === 'status') return 'replay-status';
  if (first === 'secrets') {
    if (second === 'reencrypt') return 'secrets-reencrypt';
    throw new UsageError(`secrets takes reencrypt${second ? `, not '${second}'` : ''}`);
  }
  if (first === 'attempts' || first === 'replay') return first;
  throw new UsageError(`unknown command '${first}'`);
}

/** `--key value`, `--key=value` and flags; `--json` and `--help` are understood everywhere. */
function split(argv: string[]): {
  positional: string[];
  options: Map<string, (string | true)[]>;
  json: boolean;
} {
  const positional: string[] = [];
  const options = new Map<string, (string | true)[]>();
  let json = false;
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (!word.startsWith('--')) {
      positional.push(word);
      continue;
    }
    const eq = word.indexOf('=');
    const key = eq === -1 ? word.slice(2) : word.slice(2, eq);
    if (key === 'json') {
      json = true;
      continue;
    }
    if (key === 'help') return { positional: ['help'], options: new Map(), json };
    let value: string | true = true;
    if (eq !== -1) value = word.slice(eq + 1);
    else if (!FLAGS.has(key) && i + 1 < argv.length && !argv[i + 1]!.startsWith('--')) value = argv[++i]!;
    options.set(key, [...(options.get(key) ?? []), value]);
  }
  return { positional, options, json };
}

/** Options that never take a value. */
const FLAGS = new Set(['all', 'wait']);

/**
 * A date (midnight UTC), a date and time with `Z` or an offset, as the admin API takes it. No
 * local time: the operator's shell time zone would silently move a redrive's or replay's range.
 */
const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/;

/** An ISO 8601 time as given, or a duration (`30m`, `2h`, `1d`) ago. */
export function parseTime(text: string, nowMs: number): string {
  const agoMs = parseDurationMs(text);
  if (agoMs !== undefined && /[a-z]$/.test(text.trim())) return new Date(nowMs - agoMs).toISOString();
  const parts = ISO_TIME.exec(text);
  if (!parts) {
    const local = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?$/.test(text);
    throw new UsageError(
      local
        ? `'${text}' has no time zone: add Z (UTC) or an offset such as +02:00`
        : `'${text}' is neither an ISO 8601 time nor a duration such as 30m, 2h, 1d`,
    );
  }
  const [year, month, day, hour, minute, second] = parts.slice(1, 7).map((p) => Number(p ?? 0));
  const ms = Date.parse(parts[4] === undefined ? `${text}T00:00:00Z` : text);
  // Date.parse rolls an impossible date over (2024-02-30 is 1 March): the fields must stay.
  const fields = new Date(Date.UTC(year!, month! - 1, day!, hour, minute, second));
  const valid =
    !Number.isNaN(ms) &&
    fields.getUTCFullYear() === year &&
    fields.getUTCMonth() === month! - 1 &&
    fields.getUTCDate() === day &&
    fields.getUTCHours() === hour &&
    fields.getUTCMinutes() === minute &&
    fields.getUTCSeconds() === second;
  if (!valid) throw new UsageError(`'${text}' is not a valid date and time`);
  return new Date(ms).toISOString();
}
