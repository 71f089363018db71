import { createRequire } from 'node:module';
import { logLevel } from './kafkajs';

export type LogLevelName = 'error' | 'warn' | 'info' | 'debug';

const LEVELS: Record<number, LogLevelName> = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'info',
  [logLevel.DEBUG]: 'debug',
};

/**
 * The messages of the Kafka protocol errors kafkajs retries (its own table: a coordinator
 * loading or not there yet, a partition's leader moving, a transaction busy, ...). Empty if the
 * table cannot be read: every failed response then stays at error level.
 */
export function retriableProtocolMessages(
  requireFrom: NodeRequire = createRequire(__filename),
): ReadonlySet<string> {
  try {
    const { errorCodes } = requireFrom('kafkajs/src/protocol/error') as {
      errorCodes: { message: string; retriable: boolean }[];
    };
    return new Set(errorCodes.filter((e) => e.retriable).map((e) => e.message));
  } catch {
    return new Set();
  }
}

/**
 * The level a kafkajs log line gets in Hookline's log. kafkajs logs every failed response at
 * error level (`Response <Api>(key, version)`, the broker's error as `error`), also those it
 * then retries and that pass on their own: a group coordinator still loading at start, a leader
 * election, a busy transaction. Those are warnings: an operator alerting on error lines should not
 * be woken by a broker doing its routine. A failed response kafkajs does not retry, a connection
 * error and everything else keep kafkajs's level.
 */
export function kafkajsLogLevel(
  level: number,
  entry: { message: string; error?: unknown },
  retriable: ReadonlySet<string>,
): LogLevelName {
  const name = LEVELS[level] ?? 'info';
  const retried =
    name === 'error' &&
    entry.message.startsWith('Response ') &&
    typeof entry.error === 'string' &&
    retriable.has(entry.error);
  return retried ? 'warn' : name;
}
