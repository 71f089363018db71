import { Registry } from 'prom-client';
import { linkToPrimary } from '../../../src/process/child';
import type { AttemptsFound, AttemptSource } from '../../../src/operations/attempts/log';
import { recordProcessSend } from '../../support/process-send';

/** The keeping child's side: questions the primary passes on are answered from the index served. */
describe('a child keeping the attempt index', () => {
  const sent = recordProcessSend();

  const ask = async (id: string) => {
    process.emit(
      'message',
      { type: 'hookline:attempts', id, destinationId: 'dst_1', query: { limit: 5 } },
      undefined,
    );
    await new Promise((resolve) => setImmediate(resolve));
  };
  const source = (found: AttemptsFound): AttemptSource => ({ find: async () => found });

  it('answers from the index it serves, and only from the one served now', async () => {
    const attempts = linkToPrimary(new Registry()).attempts;
    const stopFirst = attempts.serve(source({ known: true, attempts: [] }));
    await ask('q-1');
    expect(sent).toEqual([
      { type: 'hookline:attempts-answer', id: 'q-1', found: { known: true, attempts: [] } },
    ]);

    // A start-up tried again stops the first app (its index) and serves the new one.
    stopFirst();
    const stopSecond = attempts.serve(source({ known: false, attempts: [] }));
    await ask('q-2');
    expect(sent.slice(1)).toEqual([
      { type: 'hookline:attempts-answer', id: 'q-2', found: { known: false, attempts: [] } },
    ]);
    stopSecond();
    await ask('q-3');
    expect(sent).toHaveLength(2);
  });

  it('answers a failed query with its error, and ignores other messages', async () => {
    const stop = linkToPrimary(new Registry()).attempts.serve({
      find: async () => {
        throw new Error('the schema registry did not answer');
      },
    });
    process.emit('message', { type: 'hookline:metrics', id: 'm-1' }, undefined);
    await ask('q-1');
    stop();
    expect(sent).toEqual([
      { type: 'hookline:attempts-answer', id: 'q-1', error: 'the schema registry did not answer' },
    ]);
  });
});
