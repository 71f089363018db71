import { Registry } from 'prom-client';
import { CircuitBreaker } from '../../../../src/delivery/circuit/breaker';
import { CircuitRegistry, type SharedCircuits } from '../../../../src/delivery/circuit/registry';
import { createLogger } from '../../../../src/observability/logger';
import { circuitKey, circuitUrlHash, type CircuitRecord } from '../../../../src/records/circuit';
import { policy, S } from './policy';

const URL_A = 'https://a.example/hook';

/** The topic, as every process reads it: the last record per key, told to every follower. */
function memoryBoard(): SharedCircuits & { records: Map<string, CircuitRecord> } {
  const records = new Map<string, CircuitRecord>();
  const listeners = new Set<(r: CircuitRecord) => void>();
  let stamp = 0;
  return {
    records,
    get: (destinationId, urlIndex, url) => {
      const r = records.get(circuitKey(destinationId, urlIndex));
      return r && r.urlHash === circuitUrlHash(url) ? r : undefined;
    },
    publish: async (record) => {
      const stamped = { ...record, updatedAtMs: ++stamp };
      records.set(circuitKey(record.destinationId, record.urlIndex), stamped);
      for (const l of listeners) l(stamped);
    },
    onChange: (l) => listeners.add(l),
  };
}

function worker(
  board: SharedCircuits,
  clock: { now(): number },
  autoDisable?: ConstructorParameters<typeof CircuitRegistry>[0]['autoDisable'],
) {
  return new CircuitRegistry({
    clock,
    logger: createLogger({ name: 'test', level: 'silent' }),
    metrics: new Registry(),
    policy,
    board,
    ...(autoDisable && { autoDisable }),
  });
}

function fail(r: CircuitRegistry, n: number) {
  for (let i = 0; i < n; i++) {
    if (r.allow('d1', 0, URL_A)) r.record('d1', 0, URL_A, 'timeout');
  }
}

describe('circuit state shared between workers', () => {
  it('an open published by one worker opens the URL in another, including one that never called it', () => {
    const clock = { t: 0, now: () => clock.t };
    const board = memoryBoard();
    const a = worker(board, clock);
    const b = worker(board, clock); // has called the URL before
    expect(b.allow('d1', 0, URL_A)).toBe(true);
    b.record('d1', 0, URL_A, 'success');
    fail(a, 10);
    expect(a.state('d1', URL_A)).toBe('open');
    expect(b.allow('d1', 0, URL_A)).toBe(false);
    const restarted = worker(board, clock); // a new process: starts from the published state
    expect(restarted.allow('d1', 0, URL_A)).toBe(false);
    expect(board.records.get('d1/0')).toMatchObject({
      state: 'open',
      sinceMs: 0,
      openUntilMs: 30 * S,
      trips: 1,
      failingSinceMs: 0,
      lastError: 'timeout',
    });
  });

  it('half-open everywhere after the cool-down; a probe that succeeds closes it for all', () => {
    const clock = { t: 0, now: () => clock.t };
    const board = memoryBoard();
    const a = worker(board, clock);
    const b = worker(board, clock);
    fail(a, 10);
    expect(b.allow('d1', 0, URL_A)).toBe(false);
    clock.t = 30 * S;
    expect(b.allow('d1', 0, URL_A)).toBe(true); // b's own probe
    b.record('d1', 0, URL_A, 'success');
    expect(board.records.get('d1/0')).toMatchObject({ state: 'closed', trips: 0 });
    expect(a.state('d1', URL_A)).toBe('closed');
    expect(a.allow('d1', 0, URL_A)).toBe(true);
  });

  it('a failed probe anywhere reopens it everywhere with the longer cool-down', () => {
    const clock = { t: 0, now: () => clock.t };
    const board = memoryBoard();
    const a = worker(board, clock);
    const b = worker(board, clock);
    fail(a, 10);
    b.allow('d1', 0, URL_A);
    clock.t = 30 * S;
    expect(b.allow('d1', 0, URL_A)).toBe(true);
    b.record('d1', 0, URL_A, 'connection');
    expect(board.records.get('d1/0')).toMatchObject({ state: 'open', openUntilMs: 90 * S, trips: 2 });
    expect(a.allow('d1', 0, URL_A)).toBe(false);
    clock.t = 89 * S;
    expect(a.allow('d1', 0, URL_A)).toBe(false);
  });

  it('ignores a record about a URL the destination no longer has at that position', () => {
    const clock = { t: 0, now: () => clock.t };
    const board = memoryBoard();
    fail(worker(board, clock), 10);
    expect(worker(board, clock).allow('d1', 0, 'https://b.example/new')).toBe(true);
  });
});

describe('auto-disable (HOOKLINE_CIRCUIT_AUTO_DISABLE_AFTER)', () => {
  it('disables a URL whose circuit has stayed open that long, at the trip that passes it', () => {
    const clock = { t: 0, now: () => clock.t };
    const disabled: string[] = [];
    const disableWebhook = async (destinationId: string, url: string, reason: string) =>
      disabled.push(`${destinationId} ${url} ${reason}`);
    const r = worker(memoryBoard(), clock, { afterMs: 200 * S, disableWebhook });
    fail(r, 10); // open at 0 (cool-down 30 s), then probes fail: 60 s, 120 s (cap)
    for (const t of [30, 90, 210]) {
      clock.t = t * S;
      fail(r, 1);
      expect(disabled).toEqual(t < 200 ? [] : [`d1 ${URL_A} circuit_open`]);
    }
  });

  it('starts counting again once a probe succeeded', () => {
    const clock = { t: 0, now: () => clock.t };
    const disabled: string[] = [];
    const disableWebhook = async (d: string) => disabled.push(d);
    const r = worker(memoryBoard(), clock, { afterMs: 100 * S, disableWebhook });
    fail(r, 10);
    clock.t = 30 * S;
    r.allow('d1', 0, URL_A);
    r.record('d1', 0, URL_A, 'success'); // closed
    clock.t = 110 * S;
    fail(r, 10); // open again: failing since 110 s
    expect(disabled).toEqual([]);
  });
});

describe('CircuitBreaker.adopt', () => {
  it('takes on an open circuit until its end of cool-down, then probes', () => {
    const b = new CircuitBreaker(policy, 0);
    const open = { state: 'open' as const, sinceMs: 0, openUntilMs: 30 * S, trips: 1, lastError: 'timeout' };
    expect(b.adopt(open, 5 * S)).toEqual({ from: 'closed', to: 'open' });
    expect(b.adopt(open, 6 * S)).toBeUndefined(); // the same record again changes nothing
    expect(b.allow(29 * S)).toBe(false);
    expect(b.view(30 * S)).toEqual({ state: 'half_open', sinceMs: 30 * S, lastError: 'timeout' });
  });

  it('arrives half-open when the cool-down of the published open is already over', () => {
    const b = new CircuitBreaker(policy, 0);
    expect(b.adopt({ state: 'open', sinceMs: 0, openUntilMs: 30 * S, trips: 1 }, 40 * S)).toEqual({
      from: 'closed',
      to: 'half_open',
    });
  });

  it('closes on a published close', () => {
    const b = new CircuitBreaker(policy, 0);
    b.adopt({ state: 'open', sinceMs: 0, openUntilMs: 30 * S, trips: 1 }, 0);
    expect(b.adopt({ state: 'closed', sinceMs: 10 * S, trips: 0 }, 10 * S)).toEqual({
      from: 'open',
      to: 'closed',
    });
    expect(b.shared()).toEqual({ state: 'closed', sinceMs: 10 * S, trips: 0 });
  });
});
