import { ADMIN_BASE_PATH } from '../http/admin';
import type { OperationSpec } from '../http/openapi';
import {
  attemptListSchema,
  deadLetterDetailSchema,
  deadLetterListSchema,
  redriveResultSchema,
  replayViewSchema,
} from './views';
import { attemptQueryDocs, deadLetterQueryDocs, redriveBodySchema, replayBodySchema } from './validation';

const BASE = ADMIN_BASE_PATH;

export interface OperationsRouteSpec {
  method: 'GET' | 'POST';
  path: string;
  spec: OperationSpec;
}

/**
 * The operations endpoints of the admin API, described once: registered with their handlers by
 * routes.ts, and documented in the admin OpenAPI document by admin/openapi.ts.
 */
export const OPERATIONS_ROUTES = {
  listDeadLetters: {
    method: 'GET',
    path: `${BASE}/dead-letters`,
    spec: {
      operationId: 'listDeadLetters',
      summary:
        'List dead letters, newest first: given-up tasks (with reason, attempts, history and redrivenAt once ' +
        'redriven) and undecodable records (kind = undecodable, not redrivable).',
      query: deadLetterQueryDocs,
      responses: {
        200: { description: 'The matching dead letters.', schema: deadLetterListSchema },
        503: { description: 'The dead-letter index is still loading (dlq_index_loading).' },
      },
    },
  },
  getDeadLetter: {
    method: 'GET',
    path: `${BASE}/dead-letters/{taskId}`,
    spec: {
      operationId: 'getDeadLetter',
      summary: 'Get a dead letter by task id (or undecodable:<partition>:<offset>), with its payload.',
      responses: {
        200: {
          description: 'The latest dead letter of this task, and earlier ones.',
          schema: deadLetterDetailSchema,
        },
        404: { description: 'No such dead letter (dead_letter_not_found).' },
        503: { description: 'The dead-letter index is still loading (dlq_index_loading).' },
      },
    },
  },
  redriveDeadLetters: {
    method: 'POST',
    path: `${BASE}/dead-letters/redrive`,
    spec: {
      operationId: 'redriveDeadLetters',
      summary:
        'Send pending dead-lettered tasks again as fresh tasks (attempts 0, a new retry window, history kept) and ' +
        'mark them redriven, so that a second redrive does not send them again. Tasks of deleted or disabled ' +
        'destinations are skipped.',
      body: redriveBodySchema,
      responses: {
        200: { description: 'What was redriven and what was skipped.', schema: redriveResultSchema },
        503: {
          description:
            'Index loading (dlq_index_loading) or Kafka unavailable (kafka_unavailable; may be partly done).',
        },
      },
    },
  },
  listAttempts: {
    method: 'GET',
    path: `${BASE}/destinations/{id}/attempts`,
    spec: {
      operationId: 'listAttempts',
      summary:
        'Recent delivery attempts of a destination, newest first: the last 1,000 per destination ' +
        '(HOOKLINE_ATTEMPT_INDEX_PER_DESTINATION) within HOOKLINE_ATTEMPT_INDEX_WINDOW (24 h), shortly after they happen. ' +
        'With many busy destinations, fewer: all of them share HOOKLINE_ATTEMPT_INDEX_MAX_BYTES (64 MiB) per process ' +
        '(per group of HOOKLINE_WORKERS children, which keep one index).',
      query: attemptQueryDocs,
      responses: {
        200: { description: 'The matching attempts.', schema: attemptListSchema },
        404: { description: 'Unknown destination with no recorded attempts (destination_not_found).' },
        503: {
          description:
            'The schema registry did not answer while the attempts were decoded (registry_unavailable), or the ' +
            'attempt index is still reading the attempts of its window after a start (attempt_index_unavailable), or, with ' +
            'HOOKLINE_WORKERS > 1, the child keeping the attempt index is restarting (attempt_index_unavailable); try again. ' +
            'With HOOKLINE_ATTEMPT_INDEX=shared, the attempts asked for are being read (a share new to this process) or are moving between ' +
            'processes, or the process keeping them did not answer (attempt_index_unavailable); try again. ' +
            'A process started with HOOKLINE_ATTEMPT_INDEX=false keeps no index (attempt_index_off): ask one that does.',
        },
      },
    },
  },
  replayDestination: {
    method: 'POST',
    path: `${BASE}/destinations/{id}/replay`,
    spec: {
      operationId: 'replayDestination',
      summary:
        'Route the events written since a time (Kafka record time) again to this destination only, up to the end ' +
        'of the events topic as it stands now. Runs in the background; follow it with GET /replays/{id}.',
      body: replayBodySchema,
      responses: {
        202: { description: 'Started.', schema: replayViewSchema },
        404: { description: 'No such destination (destination_not_found).' },
        409: {
          description:
            'The destination is disabled (destination_disabled), or a replay of it is still running, on any process ' +
            '(replay_running, with its replayId).',
        },
        429: { description: 'Too many replays running on this process (too_many_replays).' },
      },
    },
  },
  getReplay: {
    method: 'GET',
    path: `${BASE}/replays/{id}`,
    spec: {
      operationId: 'getReplay',
      summary: 'Progress of a replay. Replays are tracked by the process that runs them (the last 100).',
      responses: {
        200: { description: 'The replay.', schema: replayViewSchema },
        404: { description: 'This process runs no such replay (replay_not_found).' },
      },
    },
  },
} satisfies Record<string, OperationsRouteSpec>;

export type OperationsRouteName = keyof typeof OPERATIONS_ROUTES;

export const OPERATIONS_ROUTE_SPECS: readonly OperationsRouteSpec[] = Object.values(OPERATIONS_ROUTES);
