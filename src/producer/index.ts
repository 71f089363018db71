/**
 * `@hookline/producer` (also `hookline/producer` from the service package): Hookline's client
 * library, built into packages/producer from this file and what it imports. It publishes calls
 * straight to Kafka, Avro through the schema registry, as the very records the tracking API would
 * write for the same calls (same normalisation, topic, key and schema), so they flow through
 * routing and delivery unchanged. Transport 'http' sends the same calls to a tracking API instead.
 *
 *   import { Analytics } from '@hookline/producer';
 *
 *   const analytics = await Analytics.connect(writeKey); // brokers/registry from KAFKA_BROKERS, SCHEMA_REGISTRY_URL
 *   analytics.identify({ userId: 'u1', traits: { plan: 'pro' } });
 *   analytics.track({ userId: 'u1', event: 'Order Completed', properties: { orderId: 12345678901234567890n } });
 *   await analytics.close();
 *
 * Every call returns its messageId or throws synchronously (typed, never a rejected promise):
 * InvalidMessageError / MessageTooLargeError (the call is wrong), QueueFullError (back-pressure,
 * retriable), ClientClosedError, SourceDisabledError / InvalidWriteKeyError (the catalog changed).
 * Batching: every `flushAt` calls (20) or `flushAfterMs` (5 s) after the last flush, ≤ 500 KB a
 * batch. `DEBUG=analytics` logs what the library does to stderr. See packages/producer/README.md.
 */
export { Analytics } from './analytics';
export type {
  AliasMessage,
  CommonFields,
  FreeformObject,
  FreeformValue,
  GroupMessage,
  IdentifyMessage,
  Identity,
  Integrations,
  PageMessage,
  ScreenMessage,
  TrackMessage,
} from './messages';
export {
  DEFAULT_CLOSE_TIMEOUT_MS,
  DEFAULT_FLUSH_AFTER_MS,
  DEFAULT_FLUSH_AT,
  DEFAULT_MAX_QUEUED_MESSAGES,
  type AnalyticsOptions,
  type CommonOptions,
  type ErrorContext,
  type HttpTransportOptions,
  type KafkaTransportOptions,
} from './options';
export { systemScheduler, type Scheduler } from './scheduler';
export type { Clock } from '../core/clock';
export type { Logger } from '../observability/logger';
export { MAX_BATCH_BYTES } from './transport';
export { MAX_EVENT_BYTES as MAX_MESSAGE_BYTES } from '../events/normalize';
export {
  CatalogLagError,
  ClientClosedError,
  ConfigError,
  EventsRejectedError,
  HooklineError,
  InvalidMessageError,
  InvalidWriteKeyError,
  KafkaUnavailableError,
  KafkaWriteRefusedError,
  MessageTooLargeError,
  MessagesNotDeliveredError,
  QueueFullError,
  RegistryUnavailableError,
  SourceDisabledError,
  TopicNotFoundError,
  TrackingApiError,
  UnencodableRecordError,
} from './errors';
