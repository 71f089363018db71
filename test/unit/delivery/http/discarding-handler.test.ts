import {
  BodyOverCapError,
  DiscardingHandler,
  type RequestEnd,
} from '../../../../src/delivery/http/discarding-handler';

/** A handler and what it settled with; `aborts` are the reasons undici's abort was called with. */
function handler(maxBytes = 10) {
  const ends: RequestEnd[] = [];
  const aborts: Error[] = [];
  const h = new DiscardingHandler(maxBytes, (end) => ends.push(end));
  const connect = () => h.onConnect((reason) => void aborts.push(reason));
  return { h, ends, aborts, connect };
}

const raw = (...pairs: string[]) => pairs.map((p) => Buffer.from(p, 'latin1'));

describe('DiscardingHandler', () => {
  it('keeps the status and the first Retry-After, whatever its case, and reads the body', () => {
    const { h, ends, connect } = handler();
    connect();
    h.onHeaders(503, raw('Content-Type', 'text/plain', 'RETRY-AFTER', '120', 'retry-after', '5'));
    h.onData(Buffer.from('busy'));
    h.onComplete();
    expect(ends).toEqual([{ answered: true, status: 503, retryAfter: '120', bodyOverCap: false }]);
  });

  it('waits past informational answers (1xx) for the final one', () => {
    const { h, ends, connect } = handler();
    connect();
    h.onHeaders(100, raw('Retry-After', '9'));
    h.onHeaders(200, []);
    h.onComplete();
    expect(ends).toEqual([{ answered: true, status: 200, retryAfter: undefined, bodyOverCap: false }]);
  });

  it('aborts once the body passes the cap, and still reports the answer', () => {
    const { h, ends, aborts, connect } = handler(10);
    connect();
    h.onHeaders(200, []);
    h.onData(Buffer.alloc(6));
    expect(aborts).toEqual([]);
    h.onData(Buffer.alloc(6));
    h.onData(Buffer.alloc(6)); // what undici had read already: not aborted twice
    expect(aborts).toEqual([expect.any(BodyOverCapError)]);
    h.onError(aborts[0]); // undici fails the request it aborted
    expect(ends).toEqual([{ answered: true, status: 200, retryAfter: undefined, bodyOverCap: true }]);
  });

  it('reports an error before the status line as unanswered', () => {
    const { h, ends, connect } = handler();
    connect();
    const error = Object.assign(new Error('socket hang up'), { code: 'UND_ERR_SOCKET' });
    h.onError(error);
    expect(ends).toEqual([{ answered: false, error }]);
  });

  it('aborts at once when started, or as soon as undici starts a request still waiting for a socket', () => {
    const started = handler();
    started.connect();
    started.h.abort(new Error('deadline'));
    expect(started.aborts.map((e) => e.message)).toEqual(['deadline']);

    const queued = handler();
    queued.h.abort(new Error('deadline'));
    expect(queued.aborts).toEqual([]);
    queued.connect();
    expect(queued.aborts.map((e) => e.message)).toEqual(['deadline']);
  });

  it('settles once', () => {
    const { h, ends, connect } = handler();
    connect();
    h.onHeaders(204, []);
    h.onComplete();
    h.onError(new Error('late'));
    expect(ends).toHaveLength(1);
  });
});
