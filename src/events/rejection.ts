/** Why one event of a request was refused. Sent back to the client and written to the ingest DLQ. */
export type RejectionCode =
  | 'not_an_object'
  | 'unknown_type'
  | 'event_too_large'
  | 'too_deep'
  | 'missing_identity'
  | 'missing_event'
  | 'missing_group_id'
  | 'missing_previous_id'
  | 'missing_user_id'
  | 'invalid_timestamp'
  | 'invalid_field';

export interface Rejection {
  code: RejectionCode;
  reason: string;
}
