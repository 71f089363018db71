/**
 * Whether a kafkajs log line says a broker went away under the client: the one place Hookline
 * reads kafkajs's log text (start-up uses it, src/kafka/outage.ts). kafkajs has no event for a
 * lost connection that all its clients emit, so its log is the signal; the structured parts are
 * read first (which kafkajs class logged it, at which level), the text only where they cannot tell:
 *
 * - `Connection` at error level: a connection failed (`Connection error: <socket error>`) or timed
 *   out (`Connection timeout`), from kafkajs's network/connection.js. The same class logs a failed
 *   response (`Response <Api>(...)`, the broker's error code) at error level too: not an outage.
 * - `Consumer` at error level, `Crash: <error class>: ...`: a consumer crashed on a connection
 *   error (KafkaJSConnectionError, KafkaJSConnectionClosedError: the broker closed it); kafkajs
 *   puts the error's class name first in the message.
 *
 * Bad credentials, unknown topics or refused authorisations are none of these.
 */

/** kafkajs's logLevel.ERROR. */
const ERROR = 1;
const CONNECTION_ERRORS = ['KafkaJSConnectionError', 'KafkaJSConnectionClosedError'];

export interface KafkajsLogLine {
  /** kafkajs's logger namespace (LogEntry.namespace): 'Connection', 'Consumer', ... */
  namespace: string;
  level: number;
  message: string;
}

export function brokerGoneLog({ namespace, level, message }: KafkajsLogLine): boolean {
  if (level !== ERROR) return false;
  if (namespace === 'Connection') return !message.startsWith('Response ');
  if (namespace === 'Consumer' && message.startsWith('Crash: ')) {
    const errorClass = message.slice('Crash: '.length).split(':', 1)[0];
    return CONNECTION_ERRORS.includes(errorClass);
  }
  return false;
}
