import { QueueFullError, type Analytics, type TrackMessage } from '../../src/producer';

/**
 * A `track()` as the library's README says to make it under back-pressure: on QueueFullError,
 * `await waitForRoom()` and make it again (room is not reserved). Counts the waits in `counter`.
 */
export async function trackWaitingForRoom(
  analytics: Analytics,
  message: TrackMessage,
  counter: { waits: number },
): Promise<string> {
  for (;;) {
    try {
      return analytics.track(message);
    } catch (err) {
      if (!(err instanceof QueueFullError)) throw err;
      counter.waits++;
      await analytics.waitForRoom();
    }
  }
}
