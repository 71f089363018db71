import { DEFAULT_RETRY_CUTOFF_MS, DEFAULT_RETRY_SCHEDULE_MS } from '../../../src/config/retry';
import type { DeliveryOutcome, UrlAttempt } from '../../../src/delivery/failover';
import { planHandoff, recordAttempt, type Handoff } from '../../../src/delivery/handoff';
import type { DeliveryTask } from '../../../src/records/delivery-task';

const policy = { scheduleMs: DEFAULT_RETRY_SCHEDULE_MS, cutoffMs: DEFAULT_RETRY_CUTOFF_MS };
const S = 1_000;
const M = 60 * S;
const H = 60 * M;
const T0 = Date.UTC(2026, 10, 23, 12, 0, 0);

function task(overrides: Partial<DeliveryTask> = {}): DeliveryTask {
  return {
    taskId: 'src_1:m1:dst_1',
    destinationId: 'dst_1',
    sourceId: 'src_1',
    messageId: 'm1',
    eventType: 'track',
    userKey: 'u1',
    payload: '{}',
    receivedAtMs: T0 - 50,
    attempts: 0,
    history: [],
    ...overrides,
  };
}

const url = (urlIndex: number, result: UrlAttempt['result'], status?: number): UrlAttempt => ({
  atMs: T0,
  urlIndex,
  result,
  durationMs: 20.4,
  ...(status !== undefined && { status }),
  ...(status === undefined && { error: `${result} error` }),
});
/** What the SSRF guard leaves of a refused URL: its index and the result, no status, no error. */
const blocked = (urlIndex: number): UrlAttempt => ({
  atMs: T0,
  urlIndex,
  result: 'blocked_address',
  durationMs: 0.4,
});
const delivered = (...attempts: UrlAttempt[]): DeliveryOutcome => ({
  kind: 'delivered',
  urlIndex: attempts[attempts.length - 1]!.urlIndex,
  status: 200,
  attempts,
});
const failed = (retriable: boolean, attempts: UrlAttempt[], retryAfterMs?: number): DeliveryOutcome => ({
  kind: 'failed',
  retriable,
  attempts,
  ...(retryAfterMs !== undefined && { retryAfterMs }),
});

/** The delivery policy, row by row: what happens to a task after an attempt. */
describe('planHandoff', () => {
  const cases: {
    name: string;
    task: DeliveryTask;
    outcome: DeliveryOutcome;
    nowMs?: number;
    handoff: Handoff;
    detail?: string;
  }[] = [
    {
      name: 'a 2xx on the first URL: delivered',
      task: task(),
      outcome: delivered(url(0, 'success', 200)),
      handoff: { outcome: 'delivered' },
    },
    {
      name: 'failover: URL 0 down, URL 1 answers 2xx: delivered',
      task: task(),
      outcome: delivered(url(0, 'connection'), url(1, 'success', 204)),
      handoff: { outcome: 'delivered' },
    },
    {
      name: 'a 500 on the first attempt: retried at the first step',
      task: task(),
      outcome: failed(true, [url(0, 'http_5xx', 500)]),
      handoff: { outcome: 'retry_scheduled', tierDelayMs: 10 * S, dueAtMs: T0 + 10 * S },
      detail: '10s',
    },
    {
      name: 'a timeout on the third attempt: the third step',
      task: task({ attempts: 2, firstAttemptAtMs: T0 - 70 * S }),
      outcome: failed(true, [url(0, 'timeout')]),
      handoff: { outcome: 'retry_scheduled', tierDelayMs: 5 * M, dueAtMs: T0 + 5 * M },
      detail: '5m',
    },
    {
      name: 'a 429 asking for 2 minutes: the smallest step at least that long',
      task: task(),
      outcome: failed(true, [url(0, 'http_4xx', 429)], 2 * M),
      handoff: { outcome: 'retry_scheduled', tierDelayMs: 5 * M, dueAtMs: T0 + 5 * M },
      detail: '5m',
    },
    {
      name: 'a 404: dead-lettered at once with the status',
      task: task(),
      outcome: failed(false, [url(0, 'http_4xx', 404)]),
      handoff: { outcome: 'dead_lettered', reason: 'http_404' },
      detail: 'http_404',
    },
    {
      name: 'a certificate that does not verify: dead-lettered as tls',
      task: task(),
      outcome: failed(false, [url(0, 'tls')]),
      handoff: { outcome: 'dead_lettered', reason: 'tls' },
      detail: 'tls',
    },
    {
      name: 'the SSRF guard refused the address: dead-lettered as blocked_address, not retried',
      task: task(),
      outcome: failed(false, [blocked(0)]),
      handoff: { outcome: 'dead_lettered', reason: 'blocked_address' },
      detail: 'blocked_address',
    },
    {
      name: 'URL 0 refused by the guard, URL 1 answers 2xx: delivered',
      task: task(),
      outcome: delivered(blocked(0), url(1, 'success', 200)),
      handoff: { outcome: 'delivered' },
    },
    {
      name: 'URL 0 refused by the guard, URL 1 answers 503: retried for URL 1',
      task: task(),
      outcome: failed(true, [blocked(0), url(1, 'http_5xx', 503)]),
      handoff: { outcome: 'retry_scheduled', tierDelayMs: 10 * S, dueAtMs: T0 + 10 * S },
      detail: '10s',
    },
    {
      name: 'one URL retriable, the other not: retried',
      task: task(),
      outcome: failed(true, [url(0, 'http_4xx', 400), url(1, 'http_5xx', 503)]),
      handoff: { outcome: 'retry_scheduled', tierDelayMs: 10 * S, dueAtMs: T0 + 10 * S },
      detail: '10s',
    },
    {
      name: 'every URL disabled after 410 Gone: nothing to call',
      task: task(),
      outcome: failed(false, []),
      handoff: { outcome: 'dead_lettered', reason: 'all_urls_disabled' },
      detail: 'all_urls_disabled',
    },
    {
      name: 'the next step would pass the 4 h cutoff: dead-lettered',
      task: task({ attempts: 7, firstAttemptAtMs: T0 - 3 * H - 26 * M }),
      outcome: failed(true, [url(0, 'http_5xx', 502)]),
      handoff: { outcome: 'dead_lettered', reason: 'retry_cutoff' },
      detail: 'retry_cutoff',
    },
    {
      name: 'every URL skipped for an open circuit: retried like any failure',
      task: task({ attempts: 1, firstAttemptAtMs: T0 - 10 * S }),
      outcome: failed(true, [url(0, 'circuit_open'), url(1, 'circuit_open')]),
      handoff: { outcome: 'retry_scheduled', tierDelayMs: M, dueAtMs: T0 + M },
      detail: '1m',
    },
    {
      name: 'circuits open until the cutoff: dead-lettered as circuit_open',
      task: task({ attempts: 7, firstAttemptAtMs: T0 - 3 * H - 26 * M }),
      outcome: failed(true, [url(0, 'circuit_open')]),
      handoff: { outcome: 'dead_lettered', reason: 'circuit_open' },
      detail: 'circuit_open',
    },
  ];

  it.each(cases)('$name', ({ task: before, outcome, handoff, detail }) => {
    const plan = planHandoff({ task: before, outcome, policy, startedAtMs: T0 - 25, nowMs: T0 });
    expect(plan.handoff).toEqual(handoff);
    expect(plan.task.attempts).toBe(before.attempts + 1);
    expect(plan.task.firstAttemptAtMs).toBe(before.firstAttemptAtMs ?? T0 - 25);
    expect(plan.task.history).toHaveLength(before.history.length + 1);
    expect(plan.attempt).toMatchObject({
      taskId: before.taskId,
      attempt: before.attempts + 1,
      atMs: T0 - 25,
      durationMs: 25,
      outcome: handoff.outcome,
    });
    expect(plan.attempt.detail).toBe(detail);
    expect(plan.attempt.urls.map((u) => u.urlIndex)).toEqual(outcome.attempts.map((a) => a.urlIndex));
  });

  it('records the last URL tried in the history, rounded, with its status or error', () => {
    const plan = planHandoff({
      task: task(),
      outcome: failed(true, [url(0, 'http_4xx', 400), url(1, 'timeout')]),
      policy,
      startedAtMs: T0,
      nowMs: T0 + 5_012.6,
    });
    expect(plan.task.history).toEqual([
      { atMs: T0, durationMs: 5_013, urlIndex: 1, result: 'timeout', error: 'timeout error' },
    ]);
    expect(plan.attempt.urls).toEqual([
      { urlIndex: 0, result: 'http_4xx', status: 400, durationMs: 20 },
      { urlIndex: 1, result: 'timeout', durationMs: 20, error: 'timeout error' },
    ]);
    expect(plan.attempt.dueAtMs).toBe(T0 + 5_012.6 + 10 * S);
  });

  it('keeps the first attempt time across retries, so the cutoff counts from it', () => {
    const first = planHandoff({
      task: task(),
      outcome: failed(true, [url(0, 'http_5xx', 500)]),
      policy,
      startedAtMs: T0,
      nowMs: T0,
    });
    const second = planHandoff({
      task: first.task,
      outcome: failed(true, [url(0, 'http_5xx', 500)]),
      policy,
      startedAtMs: T0 + 10 * S,
      nowMs: T0 + 10 * S,
    });
    expect(second.task.firstAttemptAtMs).toBe(T0);
    expect(second.task.attempts).toBe(2);
    expect(second.handoff).toEqual({ outcome: 'retry_scheduled', tierDelayMs: M, dueAtMs: T0 + 10 * S + M });
  });

  it('records a blocked attempt with its reason only: no status, no error, no address', () => {
    const plan = planHandoff({
      task: task(),
      outcome: failed(false, [blocked(0)]),
      policy,
      startedAtMs: T0,
      nowMs: T0 + 1,
    });
    expect(plan.task.history).toEqual([{ atMs: T0, durationMs: 1, urlIndex: 0, result: 'blocked_address' }]);
    expect(plan.attempt).toMatchObject({
      outcome: 'dead_lettered',
      detail: 'blocked_address',
      urls: [{ urlIndex: 0, result: 'blocked_address', durationMs: 0 }],
    });
    expect(plan.attempt.urls[0]).toEqual({ urlIndex: 0, result: 'blocked_address', durationMs: 0 });
  });
});

describe('recordAttempt', () => {
  // Required<>: a field added to DeliveryTask must be added here, so the copy is checked for it too.
  const everyField: Required<DeliveryTask> = {
    ...task({ attempts: 2 }),
    firstAttemptAtMs: T0 - 40,
    dueAtMs: T0 - 1,
    history: [{ atMs: T0 - 40, durationMs: 5, urlIndex: 0, result: 'timeout' }],
    deadLetterReason: 'http_410',
    deadLetteredAtMs: T0 - 2,
    reissuedAtMs: T0 - 50,
  };
  const delivered: DeliveryOutcome = {
    kind: 'delivered',
    urlIndex: 1,
    status: 200,
    attempts: [url(1, 'success', 200)],
  };

  it('keeps every field of the task, counts the attempt and appends its summary', () => {
    const summary = { atMs: T0, durationMs: 12, urlIndex: 1, status: 200, result: 'success' };
    expect(recordAttempt(everyField, delivered, T0, 12.3)).toStrictEqual({
      ...everyField,
      attempts: 3,
      history: [...everyField.history, summary],
    });
  });

  it('sets the first attempt time once, and leaves absent fields absent', () => {
    const first = recordAttempt(task(), delivered, T0, 12.3);
    expect(first.firstAttemptAtMs).toBe(T0);
    expect(Object.keys(first)).not.toEqual(expect.arrayContaining(['dueAtMs']));
    expect('deadLetterReason' in first || 'deadLetteredAtMs' in first).toBe(false);
    expect(recordAttempt(first, delivered, T0 + 5, 1).firstAttemptAtMs).toBe(T0);
  });
});
