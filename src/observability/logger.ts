import pino from 'pino';
import { redactSecrets } from './redact';

export type Logger = pino.Logger;

export interface LoggerOptions {
  level?: string;
  /** Service name bound to every line. */
  name?: string;
  /** Destination stream; defaults to stdout. Tests pass their own. */
  destination?: pino.DestinationStream;
}

/**
 * JSON logs (pino). Values under keys that can carry secrets (`SECRET_KEYS`) are redacted in
 * every line and every child logger's bindings, down to two levels inside a logged object, so a
 * logged config, destination or request never prints them.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const logger = pino(
    {
      name: options.name ?? 'hookline',
      level: options.level ?? 'info',
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      // pino's `redact` option cost a redactor call per value of every line (see redact.ts).
      formatters: { log: redactSecrets, bindings: redactSecrets },
    },
    options.destination,
  );
  // pino applies `formatters.bindings` to the base bindings only. Children are created from this
  // instance (Object.create), so they and theirs inherit this `child` too.
  const child = logger.child;
  logger.child = function redactedChild(this: Logger, bindings, childOptions) {
    return child.call(this, redactSecrets(bindings), childOptions);
  } as Logger['child'];
  return logger;
}

export type LogFormat = 'json' | 'pretty';

/**
 * How the process writes its logs: human-readable only for a person at a terminal running the
 * development start (`npm start`: stdout is a TTY and that entry point offers a pretty stream);
 * JSON everywhere else: the production start, the image, a pipe, a file, a log collector.
 */
export function logFormat(options: { stdoutIsTTY: boolean; development: boolean }): LogFormat {
  return options.stdoutIsTTY && options.development ? 'pretty' : 'json';
}

/** A logger that drops everything: default for library code and unit tests. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
