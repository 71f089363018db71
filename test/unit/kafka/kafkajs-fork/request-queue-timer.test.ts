import { createRequire } from 'node:module';
import {
  CHECK_PENDING_REQUESTS_INTERVAL_MS,
  fixRequestQueueTimer,
  pendingCheckDelayMs,
  type RequestQueueState,
} from '../../../../src/kafka/kafkajs-fork/request-queue-timer';

// kafkajs's own class, as its connections use it.
const RequestQueue = createRequire(__filename)('kafkajs/src/network/requestQueue') as new (
  options: object,
) => {
  pending: unknown[];
  inflight: Map<number, unknown>;
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  push(request: object): void;
  fulfillRequest(response: { correlationId: number; payload: Buffer | null; size: number }): void;
  maybeThrottle(ms: number): void;
  checkPendingRequests(): void;
  destroy(): void;
};

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const newQueue = () =>
  new RequestQueue({
    maxInFlightRequests: 1,
    requestTimeout: 30_000,
    enforceRequestTimeout: false,
    clientId: 'test',
    broker: 'localhost:9092',
    logger: silent,
  });

/** A request as kafkajs's Connection pushes it; `sent` counts the times it was written. */
const request = (correlationId: number, sent: number[]) => ({
  entry: { apiKey: 1, apiName: 'Fetch', apiVersion: 11, correlationId, resolve() {}, reject() {} },
  expectResponse: true,
  requestTimeout: 30_000,
  sendRequest: () => sent.push(correlationId),
});

describe('pendingCheckDelayMs', () => {
  const state = (over: Partial<RequestQueueState>): RequestQueueState => ({
    pending: [],
    throttledUntil: -1,
    throttleCheckTimeoutId: null,
    checkPendingRequests() {},
    ...over,
  });
  const armed = setTimeout(() => {}, 0);
  afterAll(() => clearTimeout(armed));

  it.each<[string, Partial<RequestQueueState>, number | undefined]>([
    ['nothing waits, not throttled (kafkajs 2.2.4 armed a 1 ms timer here)', {}, undefined],
    ['nothing waits, throttled', { throttledUntil: 1_500 }, undefined],
    ['a request waits for an in-flight slot', { pending: [{}] }, CHECK_PENDING_REQUESTS_INTERVAL_MS],
    ['a request waits out a throttle', { pending: [{}], throttledUntil: 1_250 }, 250],
    [
      'the throttle ended just now',
      { pending: [{}], throttledUntil: 1_000 },
      CHECK_PENDING_REQUESTS_INTERVAL_MS,
    ],
    ['a timer is already armed', { pending: [{}], throttleCheckTimeoutId: armed }, undefined],
  ])('%s', (_, over, expected) => {
    expect(pendingCheckDelayMs(state(over), 1_000)).toBe(expected);
  });
});

describe('fixRequestQueueTimer on the installed kafkajs', () => {
  beforeAll(() => {
    fixRequestQueueTimer();
  });
  afterEach(() => jest.useRealTimers());

  it('has replaced the method (a kafkajs upgrade that changed it fails here, to be looked at)', () => {
    expect(fixRequestQueueTimer().status).toBe('already applied');
  });

  it('leaves no timer armed on a queue with nothing waiting', () => {
    const queue = newQueue();
    const sent: number[] = [];
    queue.push(request(1, sent));
    queue.fulfillRequest({ correlationId: 1, payload: null, size: 0 });
    queue.checkPendingRequests();
    expect(sent).toEqual([1]);
    expect(queue.throttleCheckTimeoutId).toBeNull();
    queue.destroy();
  });

  it('sends a request that waited for an in-flight slot when the slot frees; its timer does not re-arm', () => {
    jest.useFakeTimers();
    const queue = newQueue();
    const sent: number[] = [];
    queue.push(request(1, sent));
    queue.push(request(2, sent)); // maxInFlightRequests 1: waits
    expect(sent).toEqual([1]);
    expect(queue.pending).toHaveLength(1);
    queue.fulfillRequest({ correlationId: 1, payload: null, size: 0 });
    expect(sent).toEqual([1, 2]);
    queue.fulfillRequest({ correlationId: 2, payload: null, size: 0 });
    jest.advanceTimersByTime(CHECK_PENDING_REQUESTS_INTERVAL_MS); // the check armed while 2 waited
    expect(queue.throttleCheckTimeoutId).toBeNull();
    expect(jest.getTimerCount()).toBe(0);
    queue.destroy();
  });

  it('sends a request held by a broker throttle once the throttle ends, by the timer alone', () => {
    jest.useFakeTimers({ now: 10_000 });
    const queue = newQueue();
    const sent: number[] = [];
    queue.maybeThrottle(300);
    queue.push(request(1, sent));
    expect(sent).toEqual([]);
    jest.advanceTimersByTime(299);
    expect(sent).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(sent).toEqual([1]);
    expect(queue.throttleCheckTimeoutId).toBeNull();
    queue.destroy();
  });
});
