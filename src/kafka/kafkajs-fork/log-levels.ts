import { createRequire } from 'node:module';
import { logLevel } from '../kafkajs';

export type LogLevelName = 'error' | 'warn' | 'info' | 'debug';

const LEVELS: Record<number, LogLevelName> = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'info',
  [logLevel.DEBUG]: 'debug',
};

interface ProtocolError {
  type: string;
  message: string;
  retriable: boolean;
}

/** The messages of the protocol errors in kafkajs's own table that `pick` picks; none if unreadable. */
function protocolMessages(
  requireFrom: NodeRequire,
  pick: (e: ProtocolError) => boolean,
): ReadonlySet<string> {
  try {
    const { errorCodes } = requireFrom('kafkajs/src/protocol/error') as { errorCodes: ProtocolError[] };
    return new Set(errorCodes.filter(pick).map((e) => e.message));
  } catch {
    return new Set();
  }
}

/**
 * The messages of the Kafka protocol errors kafkajs retries (a coordinator loading or not there
 * yet, a partition's leader moving, a transaction busy, ...). Empty if the table cannot be read:
 * every failed response then stays at error level.
 */
export const retriableProtocolMessages = (requireFrom: NodeRequire = createRequire(__filename)) =>
  protocolMessages(requireFrom, (e) => e.retriable);

/** The protocol errors of a group's routine: a rebalance in progress (members joining or leaving). */
const ROUTINE_TYPES = new Set(['REBALANCE_IN_PROGRESS']);

/**
 * The messages of the protocol errors a group meets in its routine (ROUTINE_TYPES), by their type.
 * Empty if the table cannot be read: those lines keep their level.
 */
export const routineProtocolMessages = (requireFrom: NodeRequire = createRequire(__filename)) =>
  protocolMessages(requireFrom, (e) => ROUTINE_TYPES.has(e.type));

/**
 * The level a kafkajs log line gets in Hookline's log. kafkajs logs every failed response at
 * error level (`Response <Api>(key, version)`, the broker's error as `error`), also those it
 * then retries and that pass on their own: a group coordinator still loading, a partition's leader
 * just elected (a fresh start meets both), a busy transaction. Those are debug: kafkajs retries
 * them, and one that outlasts its retries reaches the Hookline code that asked, which logs it
 * (a repeated transient failure at warn, core/backoff.ts). So is a failed CreateTopics: its one
 * caller (kafka/topics.ts, `ensureTopics`) looks at what exists after it, as another process may
 * have just created the same topics, and fails start-up itself when a topic is still missing. A
 * group rebalancing (`routine`: members joining, as every group does while it forms, or leaving)
 * is no failure at all: kafkajs joins again, as it says at warn level ("The group is
 * rebalancing, re-joining"), and Hookline logs the join ("group joined"): debug too. A failed
 * response kafkajs does not retry, a connection error and everything else keep kafkajs's level.
 */
export function kafkajsLogLevel(
  level: number,
  entry: { message: string; error?: unknown },
  retriable: ReadonlySet<string>,
  routine: ReadonlySet<string> = new Set(),
): LogLevelName {
  const error = typeof entry.error === 'string' ? entry.error : undefined;
  if (error !== undefined && routine.has(error)) return 'debug';
  const name = LEVELS[level] ?? 'info';
  if (name !== 'error' || error === undefined || !entry.message.startsWith('Response ')) return name;
  const handledByCaller = retriable.has(error) || entry.message.startsWith('Response CreateTopics(');
  return handledByCaller ? 'debug' : name;
}
