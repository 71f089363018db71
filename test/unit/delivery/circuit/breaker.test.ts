import { CircuitBreaker } from '../../../../src/delivery/circuit/breaker';
import { policy, S } from './policy';

/** Records `failures` failed and `successes` successful requests at `atMs`. */
function feed(b: CircuitBreaker, atMs: number, failures: number, successes = 0) {
  const transitions = [];
  for (let i = 0; i < successes; i++) transitions.push(b.record(false, atMs));
  for (let i = 0; i < failures; i++) transitions.push(b.record(true, atMs, 'timeout'));
  return transitions.filter(Boolean);
}

describe('CircuitBreaker', () => {
  it('stays closed below the minimum volume, however many of those requests failed', () => {
    const b = new CircuitBreaker(policy, 0);
    expect(feed(b, 0, 9)).toEqual([]);
    expect(b.state(0)).toBe('closed');
  });

  it('opens at the minimum volume once half the window failed, and then skips calls', () => {
    const b = new CircuitBreaker(policy, 0);
    feed(b, 0, 4, 5);
    expect(b.state(0)).toBe('closed');
    expect(feed(b, 1 * S, 1)).toEqual([{ from: 'closed', to: 'open' }]);
    expect(b.allow(2 * S)).toBe(false);
    expect(b.view(2 * S)).toEqual({ state: 'open', sinceMs: 1 * S, lastError: 'timeout' });
  });

  it('forgets outcomes older than the window', () => {
    const b = new CircuitBreaker(policy, 0);
    feed(b, 0, 9);
    expect(feed(b, 31 * S, 1)).toEqual([]); // the 9 early failures left the window
    expect(b.state(31 * S)).toBe('closed');
  });

  it('goes half-open after the cool-down and lets only `probes` requests through', () => {
    const b = new CircuitBreaker(policy, 0);
    feed(b, 0, 10);
    expect(b.allow(29 * S)).toBe(false);
    expect(b.state(30 * S)).toBe('half_open');
    expect([b.allow(30 * S), b.allow(30 * S), b.allow(30 * S)]).toEqual([true, true, false]);
    b.release();
    expect(b.allow(30 * S)).toBe(true);
  });

  it('closes on a successful probe, and starts counting afresh', () => {
    const b = new CircuitBreaker(policy, 0);
    feed(b, 0, 10);
    expect(b.allow(30 * S)).toBe(true);
    expect(b.record(false, 30 * S)).toEqual({ from: 'half_open', to: 'closed' });
    expect(b.view(31 * S)).toEqual({ state: 'closed', sinceMs: 30 * S });
    expect(feed(b, 31 * S, 9)).toEqual([]);
  });

  it('reopens on a failed probe with a doubled cool-down, capped', () => {
    const b = new CircuitBreaker(policy, 0);
    feed(b, 0, 10); // open at 0, 30 s
    b.allow(30 * S);
    expect(b.record(true, 30 * S)).toEqual({ from: 'half_open', to: 'open' }); // 60 s
    expect(b.state(89 * S)).toBe('open');
    expect(b.state(90 * S)).toBe('half_open');
    b.allow(90 * S);
    b.record(true, 90 * S); // 120 s
    b.allow(210 * S);
    b.record(true, 210 * S); // 240 s, capped at 120 s
    expect(b.state(329 * S)).toBe('open');
    expect(b.state(330 * S)).toBe('half_open');
  });

  it('ignores answers to requests sent before the circuit opened', () => {
    const b = new CircuitBreaker(policy, 0);
    feed(b, 0, 10);
    expect(b.record(false, 1 * S)).toBeUndefined();
    expect(b.state(1 * S)).toBe('open');
  });
});
