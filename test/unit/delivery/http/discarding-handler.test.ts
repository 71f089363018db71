import {
  BodyOverCapError,
  DiscardingHandler,
  type RequestEnd,
} from '../../../../src/delivery/http/discarding-handler';

/**
 * A handler and what it settled with; `aborts` are the reasons undici's controller was aborted
 * with. Driven as undici 8 drives it: onRequestStart with the controller, then the response.
 */
function handler(maxBytes = 10) {
  const ends: RequestEnd[] = [];
  const aborts: Error[] = [];
  const controller = { abort: (reason: Error) => void aborts.push(reason) };
  const h = new DiscardingHandler(maxBytes, (end) => ends.push(end));
  const start = () => h.onRequestStart(controller);
  const headers = (status: number, fields: Record<string, string | string[]> = {}) =>
    h.onResponseStart(controller, status, fields);
  const data = (chunk: Buffer) => h.onResponseData(controller, chunk);
  const end = () => h.onResponseEnd();
  const error = (err: Error) => h.onResponseError(controller, err);
  return { h, ends, aborts, start, headers, data, end, error };
}

describe('DiscardingHandler', () => {
  it('keeps the status and the first Retry-After, and reads the body', () => {
    const { ends, start, headers, data, end } = handler();
    start();
    // undici 8 hands over lower-cased names; a repeated header as an array, in order
    headers(503, { 'content-type': 'text/plain', 'retry-after': ['120', '5'] });
    data(Buffer.from('busy'));
    end();
    expect(ends).toEqual([{ answered: true, status: 503, retryAfter: '120', bodyOverCap: false }]);
  });

  it('keeps a single Retry-After as it was sent', () => {
    const { ends, start, headers, end } = handler();
    start();
    headers(429, { 'retry-after': 'Wed, 21 Oct 2026 07:28:00 GMT' });
    end();
    expect(ends).toEqual([
      { answered: true, status: 429, retryAfter: 'Wed, 21 Oct 2026 07:28:00 GMT', bodyOverCap: false },
    ]);
  });

  it('waits past informational answers (1xx) for the final one', () => {
    const { ends, start, headers, end } = handler();
    start();
    headers(100, { 'retry-after': '9' });
    headers(200);
    end();
    expect(ends).toEqual([{ answered: true, status: 200, retryAfter: undefined, bodyOverCap: false }]);
  });

  it('aborts once the body passes the cap, and still reports the answer', () => {
    const { ends, aborts, start, headers, data, error } = handler(10);
    start();
    headers(200);
    data(Buffer.alloc(6));
    expect(aborts).toEqual([]);
    data(Buffer.alloc(6));
    data(Buffer.alloc(6)); // what undici had read already: not aborted twice
    expect(aborts).toEqual([expect.any(BodyOverCapError)]);
    error(aborts[0]!); // undici fails the request it aborted
    expect(ends).toEqual([{ answered: true, status: 200, retryAfter: undefined, bodyOverCap: true }]);
  });

  it('reports an error before the status line as unanswered', () => {
    const { ends, start, error } = handler();
    start();
    const err = Object.assign(new Error('socket hang up'), { code: 'UND_ERR_SOCKET' });
    error(err);
    expect(ends).toEqual([{ answered: false, error: err }]);
  });

  it('aborts at once when started, or as soon as undici starts a request still waiting for a socket', () => {
    const started = handler();
    started.start();
    started.h.abort(new Error('deadline'));
    expect(started.aborts.map((e) => e.message)).toEqual(['deadline']);

    const queued = handler();
    queued.h.abort(new Error('deadline'));
    expect(queued.aborts).toEqual([]);
    queued.start();
    expect(queued.aborts.map((e) => e.message)).toEqual(['deadline']);
  });

  it('settles once', () => {
    const { ends, start, headers, end, error } = handler();
    start();
    headers(204);
    end();
    error(new Error('late'));
    expect(ends).toHaveLength(1);
  });
});
