import { catalogHttpError } from '../catalog';
import { HooklineError, RegistryUnavailableError } from '../core/errors';
import { HttpError } from '../http/respond';

/** No dead letter with this task id (or undecodable-record id) on the dead-letter topic. */
export class DeadLetterNotFoundError extends HooklineError {
  readonly retriable = false;
  readonly code = 'dead_letter_not_found';
  constructor(readonly id: string) {
    super(`no dead letter ${id}`);
  }
}

/** No replay with this id (in the last 7 days, on any process). */
export class ReplayNotFoundError extends HooklineError {
  readonly retriable = false;
  readonly code = 'replay_not_found';
  constructor(readonly id: string) {
    super(`no replay ${id}`);
  }
}

/** The dead-letter index has not read the topic up to where it stood at start. */
export class DlqIndexLoadingError extends HooklineError {
  readonly retriable = true;
  readonly code = 'dlq_index_loading';
  constructor() {
    super('the dead-letter index is still loading; try again shortly');
  }
}

/**
 * HOOKLINE_WORKERS > 1: the child that keeps the group's attempt index could not answer (it is
 * restarting, or failed to read the attempts it keeps).
 */
export class AttemptIndexUnavailableError extends HooklineError {
  readonly retriable = true;
  readonly code = 'attempt_index_unavailable';
  constructor(reason: string) {
    super(`recent attempts are unavailable for now: ${reason}; try again shortly`);
  }
}

/** HOOKLINE_ATTEMPT_INDEX=false: this process reads no attempts and has none to answer with. */
export class AttemptIndexOffError extends HooklineError {
  readonly retriable = false;
  readonly code = 'attempt_index_off';
  constructor() {
    super(
      'this process keeps no attempt index (HOOKLINE_ATTEMPT_INDEX=false); ask one that does, such as the admin API behind the service',
    );
  }
}

/** A replay to a disabled destination would only dead-letter every task. */
export class DestinationDisabledError extends HooklineError {
  readonly retriable = false;
  readonly code = 'destination_disabled';
  constructor(readonly destinationId: string) {
    super(`destination ${destinationId} is disabled; enable it before replaying`);
  }
}

/**
 * A replay of this destination is already running (on this process or another): a second one
 * would send every event of their common range twice.
 */
export class ReplayRunningError extends HooklineError {
  readonly retriable = false;
  readonly code = 'replay_running';
  constructor(
    readonly destinationId: string,
    readonly replayId: string,
  ) {
    super(
      `replay ${replayId} of destination ${destinationId} is still running; wait until GET /api/v1/replays/${replayId} says done`,
    );
  }
}

/** This process already runs its maximum of replays at once. */
export class TooManyReplaysError extends HooklineError {
  readonly retriable = true;
  readonly code = 'too_many_replays';
  constructor(readonly running: number) {
    super(`${running} replays are running on this process; wait for one to finish`);
  }
}

/** The component was stopped (the process is shutting down). */
export class OperationsStoppedError extends HooklineError {
  readonly retriable = true;
  readonly code = 'shutting_down';
  constructor() {
    super('this process is shutting down');
  }
}

/**
 * Operations errors as HTTP answers; catalog and Kafka errors go through the admin API's mapping
 * (destination_not_found 404, kafka_unavailable 503, ...).
 */
export function toOperationsHttpError(err: unknown): unknown {
  if (err instanceof DeadLetterNotFoundError || err instanceof ReplayNotFoundError) {
    return new HttpError(404, err.code, err.message);
  }
  if (err instanceof DestinationDisabledError) return new HttpError(409, err.code, err.message);
  if (err instanceof ReplayRunningError) {
    return new HttpError(409, err.code, err.message, { replayId: err.replayId });
  }
  if (err instanceof TooManyReplaysError) return new HttpError(429, err.code, err.message);
  if (
    err instanceof DlqIndexLoadingError ||
    err instanceof AttemptIndexUnavailableError ||
    err instanceof AttemptIndexOffError ||
    err instanceof OperationsStoppedError ||
    err instanceof RegistryUnavailableError // decoding attempts a query reads
  ) {
    return new HttpError(503, err.code, err.message);
  }
  return catalogHttpError(err);
}
