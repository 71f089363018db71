import { answeredOnceRead, type AttemptIndex } from '../../../../src/operations/attempts/topic-index';
import { AttemptLog } from '../../../../src/operations/attempts/log';
import { AttemptIndexUnavailableError } from '../../../../src/operations/errors';

/** An index whose reading of its window ends when the test says. */
function indexReading() {
  let caughtUp!: () => void;
  let failed!: (err: Error) => void;
  const read = new Promise<void>((resolve, reject) => {
    caughtUp = resolve;
    failed = reject;
  });
  read.catch(() => undefined);
  const log = new AttemptLog({
    perDestination: 10,
    maxBytes: 1 << 20,
    decode: () => Promise.reject(new Error('no record is decoded here')),
  });
  log.addRecord('dst_a', Buffer.from('kept'));
  const index: AttemptIndex = {
    log,
    nextOffsets: () => new Map(),
    whenCaughtUp: () => read,
    stop: async () => {},
  };
  return { index, caughtUp, failed };
}

const turn = () => new Promise((r) => setImmediate(r));

describe('answeredOnceRead', () => {
  it('answers 503 attempt_index_unavailable until the window is read, then from the log', async () => {
    const { index, caughtUp } = indexReading();
    const source = answeredOnceRead(index);
    await expect(source.find('dst_b', { limit: 10 })).rejects.toThrow(
      new AttemptIndexUnavailableError('the attempt index is still reading the attempts of its window'),
    );
    caughtUp();
    await turn();
    await expect(source.find('dst_b', { limit: 10 })).resolves.toEqual({ known: false, attempts: [] });
  });

  it('says why when the reading stopped before the end', async () => {
    const { index, failed } = indexReading();
    const source = answeredOnceRead(index);
    failed(new Error('consumer of p.attempts crashed'));
    await turn();
    const err = await source.find('dst_a', { limit: 10 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AttemptIndexUnavailableError);
    expect((err as Error).message).toContain(
      'the attempt index stopped reading: consumer of p.attempts crashed',
    );
  });
});
