import pino from 'pino';

export type Logger = pino.Logger;

export interface LoggerOptions {
  level?: string;
  /** Service name bound to every line. */
  name?: string;
  /** Destination stream; defaults to stdout. Tests pass their own. */
  destination?: pino.DestinationStream;
}

/**
 * JSON logs (pino). Values under keys that can carry secrets are redacted everywhere, so a
 * logged config, destination or request never prints them.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    {
      name: options.name ?? 'hookline',
      level: options.level ?? 'info',
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: [
          '*.sharedSecret',
          '*.*.sharedSecret',
          '*.writeKey',
          '*.adminToken',
          '*.password',
          '*.authorization',
          '*.headers.authorization',
          'sharedSecret',
          'writeKey',
          'adminToken',
          'password',
        ],
        censor: '[redacted]',
      },
    },
    options.destination,
  );
}

/** A logger that drops everything: default for library code and unit tests. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
