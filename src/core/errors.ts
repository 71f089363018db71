/**
 * One small error hierarchy for the whole service. Every error says whether retrying the same
 * operation later can succeed (`retriable`); callers branch with `instanceof` or on that flag,
 * never on message strings.
 */
export abstract class HooklineError extends Error {
  abstract readonly retriable: boolean;
  /** Stable machine-readable code, safe to log and to return to clients. */
  abstract readonly code: string;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Invalid configuration: the process cannot start. */
export class ConfigError extends HooklineError {
  readonly retriable = false;
  readonly code = 'config_invalid';
  constructor(
    readonly key: string,
    detail: string,
  ) {
    super(`${key}: ${detail}`);
  }
}

/** Bytes that cannot be turned into a record: corrupt, unknown schema id, unknown record type. */
export class UndecodableRecordError extends HooklineError {
  readonly retriable = false;
  readonly code = 'record_undecodable';
}

/** A value that does not fit the schema it is written with. */
export class UnencodableRecordError extends HooklineError {
  readonly retriable = false;
  readonly code = 'record_unencodable';
}

/** The schema registry did not answer (network, 5xx): try again later. */
export class RegistryUnavailableError extends HooklineError {
  readonly retriable = true;
  readonly code = 'registry_unavailable';
}

/** Kafka did not acknowledge a write in time, or is unreachable: try again later. */
export class KafkaUnavailableError extends HooklineError {
  readonly retriable = true;
  readonly code = 'kafka_unavailable';
}

/**
 * A record larger than Kafka takes (the broker's `message.max.bytes`, 1 MB by default): sending it
 * again cannot succeed, so it is refused before it is sent, for its caller alone.
 */
export class RecordTooLargeError extends HooklineError {
  readonly retriable = false;
  readonly code = 'record_too_large';
}

/** A reader of a topic did not reach an offset in time, or stopped while a caller waited for it. */
export class ReadLagError extends HooklineError {
  readonly retriable: boolean = true;
  readonly code: string = 'read_lagging';
}

/**
 * Work on a consumed message not started because its consumer no longer holds the message's
 * partition (it is out of the group, or the partition moved on): whoever holds it does that work.
 */
export class WorkNotHeldError extends HooklineError {
  readonly retriable = false;
  readonly code = 'work_not_held';
  constructor() {
    super('the partition of this message is no longer held by this consumer');
  }
}

/** The process was asked to stop while this waited (for brokers to become reachable, say). */
export class StoppedError extends HooklineError {
  readonly retriable = false;
  readonly code = 'stopped';
  constructor(what: string) {
    super(`stopped while ${what}`);
  }
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
