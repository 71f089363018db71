import { AttemptQueryRelay, type RelayPeer } from '../../../src/process/attempt-relay';
import type { AttemptsRequest, PrimaryReply } from '../../../src/process/messages';
import type { AttemptsFound } from '../../../src/operations/attempts/log';

/** A child that records what the primary sends it. */
function child(): RelayPeer & { got: (AttemptsRequest | PrimaryReply)[] } {
  const got: (AttemptsRequest | PrimaryReply)[] = [];
  return { got, send: (message) => got.push(message) };
}

const request = (id: string, destinationId = 'dst_1'): AttemptsRequest => ({
  type: 'hookline:attempts',
  id,
  destinationId,
  query: { limit: 10 },
});

const FOUND: AttemptsFound = { known: true, attempts: [] };

/** A relay whose keeper has started, and a child that asked it once (`q-1`). */
function askedOnce() {
  const relay = new AttemptQueryRelay({ timeoutMs: 10_000 });
  const keeper = child();
  const asker = child();
  relay.keeperStarted(keeper);
  relay.ask(asker, request('q-1'));
  const passedId = () => (keeper.got[0] as AttemptsRequest).id;
  return { relay, keeper, asker, passedId };
}

describe('AttemptQueryRelay (the primary between the asking children and the one keeping the index)', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('passes a question to the keeper under an id of its own and its answer back under the asker’s', () => {
    const relay = new AttemptQueryRelay({ timeoutMs: 10_000 });
    const keeper = child();
    const a = child();
    const b = child();
    relay.keeperStarted(keeper);
    relay.ask(a, request('q-1', 'dst_a'));
    relay.ask(b, request('q-1', 'dst_b')); // two askers may pick the same id: the relay's own ids tell them apart
    expect(keeper.got).toHaveLength(2);
    const [toKeeperA, toKeeperB] = keeper.got as AttemptsRequest[];
    expect(toKeeperA).toMatchObject({
      type: 'hookline:attempts',
      destinationId: 'dst_a',
      query: { limit: 10 },
    });
    expect(toKeeperA!.id).not.toBe(toKeeperB!.id);

    relay.answered({ type: 'hookline:attempts-answer', id: toKeeperB!.id, found: FOUND });
    relay.answered({ type: 'hookline:attempts-answer', id: toKeeperA!.id, error: 'registry away' });
    expect(b.got).toEqual([{ id: 'q-1', found: FOUND }]);
    expect(a.got).toEqual([{ id: 'q-1', error: 'registry away' }]);
    expect(relay.waiting).toBe(0);
  });

  it('answers at once with an error while no keeper has started', () => {
    const relay = new AttemptQueryRelay({ timeoutMs: 10_000 });
    const a = child();
    relay.ask(a, request('q-1'));
    expect(a.got).toEqual([{ id: 'q-1', error: 'the attempt index is starting' }]);
  });

  it('answers what the keeper was asked with an error when it exits, and waits for the next one', () => {
    const { relay, asker: a, passedId } = askedOnce();
    relay.keeperGone();
    expect(a.got).toEqual([{ id: 'q-1', error: 'the attempt index restarted' }]);
    // A late answer of the old keeper is dropped, not sent twice.
    relay.answered({ type: 'hookline:attempts-answer', id: passedId(), found: FOUND });
    expect(a.got).toHaveLength(1);

    relay.ask(a, request('q-2'));
    expect(a.got[1]).toEqual({ id: 'q-2', error: 'the attempt index is starting' });
    const next = child();
    relay.keeperStarted(next);
    relay.ask(a, request('q-3'));
    expect(next.got).toHaveLength(1);
  });

  it('gives up on a question the keeper does not answer in time, and drops its late answer', () => {
    const { relay, asker: a, passedId } = askedOnce();
    jest.advanceTimersByTime(9_999);
    expect(a.got).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(a.got).toEqual([{ id: 'q-1', error: 'the attempt index did not answer' }]);
    relay.answered({ type: 'hookline:attempts-answer', id: passedId(), found: FOUND });
    expect(a.got).toHaveLength(1);
    expect(relay.waiting).toBe(0);
  });
});
