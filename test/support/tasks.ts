import type { DeliveryTask } from '../../src/records/delivery-task';

/** A first-attempt task of one track event to destination `d` (source `s`, message `m`, user `u`). */
export function deliveryTask(overrides: Partial<DeliveryTask> = {}): DeliveryTask {
  return {
    taskId: 's:m:d',
    destinationId: 'd',
    sourceId: 's',
    messageId: 'm',
    eventType: 'track',
    userKey: 'u',
    payload: '{}',
    receivedAtMs: 0,
    attempts: 0,
    history: [],
    ...overrides,
  };
}
