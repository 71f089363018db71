import {
  AudienceKeyTakenError,
  BlockedWebhookUrlError,
  CatalogConflictError,
  CatalogNotFoundError,
  CatalogNotReadyError,
  SourceHasDestinationsError,
  UnknownSourceError,
} from '../errors';
import { KafkaUnavailableError } from '../../core/errors';
import { HttpError } from '../../http/respond';

/**
 * The one place where catalog errors become HTTP answers. Anything unknown passes through
 * unchanged (the server answers 500 and logs it). Messages name ids only, never secrets.
 */
export function toHttpError(err: unknown): unknown {
  if (err instanceof HttpError) return err;
  if (err instanceof CatalogNotFoundError) return new HttpError(404, err.code, err.message);
  if (err instanceof UnknownSourceError) return new HttpError(422, err.code, err.message);
  if (err instanceof SourceHasDestinationsError) {
    return new HttpError(409, err.code, err.message, { destinationIds: err.destinationIds });
  }
  if (err instanceof AudienceKeyTakenError) {
    return new HttpError(409, err.code, err.message, { key: err.key, takenBy: err.takenBy });
  }
  if (err instanceof BlockedWebhookUrlError) {
    const path = `settings.webhooks.${err.urlIndex}.url`;
    return new HttpError(400, 'validation_failed', `${path}: ${err.message}`, {
      issues: [{ path, code: err.code, message: err.message }],
    });
  }
  if (err instanceof CatalogConflictError) {
    return new HttpError(412, err.code, err.message, {
      ...(err.currentVersion !== undefined && { currentVersion: err.currentVersion }),
    });
  }
  if (err instanceof CatalogNotReadyError) return new HttpError(503, err.code, err.message);
  if (err instanceof KafkaUnavailableError) {
    return new HttpError(
      503,
      err.code,
      'Kafka did not acknowledge the change in time; it may or may not have been applied',
    );
  }
  return err;
}
