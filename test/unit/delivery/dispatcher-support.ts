import { Dispatcher, type DispatcherOptions } from '../../../src/delivery/dispatcher';
import type { DeliveryTask } from '../../../src/records/delivery-task';

/** The Dispatcher's unit tests' tasks, runs and dispatchers. */

export const task = (destinationId: string, userKey: string, messageId: string): DeliveryTask => ({
  taskId: `s:${messageId}:${destinationId}`,
  destinationId,
  sourceId: 's',
  messageId,
  eventType: 'track',
  userKey,
  payload: '{}',
  receivedAtMs: 0,
  attempts: 0,
  history: [],
});

/** A run function whose calls the test finishes by hand. */
export function manualRuns() {
  const running = new Map<string, () => void>();
  const started: string[] = [];
  const run = (t: DeliveryTask) =>
    new Promise<void>((resolve) => {
      started.push(t.messageId);
      running.set(t.messageId, resolve);
    });
  const finish = async (messageId: string) => {
    running.get(messageId)!();
    running.delete(messageId);
    await new Promise((r) => setImmediate(r));
  };
  return { run, started, finish };
}

/** A dispatcher with the test's run function; other settings default to a small, patient lane. */
export function dispatcher(options: Partial<DispatcherOptions> & Pick<DispatcherOptions, 'run'>): Dispatcher {
  return new Dispatcher({
    maxActivePerDestination: 2,
    maxQueuedPerDestination: 3,
    deferAfterWaitMs: 10_000,
    maxTotal: 1_000,
    slowShare: 0.5,
    slowRunMs: 60_000,
    defer: async () => {},
    clock: { now: () => 0 },
    ...options,
  });
}

/** Runs whose requests end (`requestsDone`) and whose hand-offs end (resolve) by hand. */
export function twoStepRuns() {
  const started: string[] = [];
  const requests = new Map<string, (delivered: boolean) => void>();
  const handoffs = new Map<string, () => void>();
  const run = (t: DeliveryTask, requestsDone: (delivered: boolean) => void) =>
    new Promise<void>((resolve) => {
      started.push(t.messageId);
      requests.set(t.messageId, requestsDone);
      handoffs.set(t.messageId, resolve);
    });
  const settle = () => new Promise((r) => setImmediate(r));
  return { run, started, requests, handoffs, settle };
}
