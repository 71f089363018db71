import { withoutWriteKey } from '../../../src/ingest/auth';
import type { JsonValue } from '../../../src/events/json';

describe('withoutWriteKey', () => {
  const cases: { name: string; event: JsonValue; kept: JsonValue }[] = [
    {
      name: 'drops a top-level writeKey',
      event: { type: 'track', writeKey: 'wk_secret', event: 'Signed Up' },
      kept: { type: 'track', event: 'Signed Up' },
    },
    {
      name: 'keeps an event without one as it is',
      event: { type: 'track', event: 'Signed Up' },
      kept: { type: 'track', event: 'Signed Up' },
    },
    {
      name: 'keeps a writeKey nested in properties (the client’s own data)',
      event: { type: 'track', properties: { writeKey: 'not ours' } },
      kept: { type: 'track', properties: { writeKey: 'not ours' } },
    },
    { name: 'keeps a value that is not an object', event: 'text', kept: 'text' },
    { name: 'keeps an array', event: [{ writeKey: 'x' }], kept: [{ writeKey: 'x' }] },
    { name: 'keeps null', event: null, kept: null },
  ];
  it.each(cases)('$name', ({ event, kept }) => {
    expect(withoutWriteKey(event)).toEqual(kept);
  });

  it('leaves the event it was given unchanged', () => {
    const event = { type: 'identify', writeKey: 'wk_secret', traits: { a: 1 } };
    withoutWriteKey(event);
    expect(event.writeKey).toBe('wk_secret');
  });
});
