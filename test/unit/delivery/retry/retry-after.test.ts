import { earliestRetryAfterMs, type UrlFailure } from '../../../../src/delivery/retry/retry-after';

const H = 3_600_000;
const plain: UrlFailure = { retriable: true }; // a 500, a timeout, an open circuit
const wait = (retryAfterMs: number): UrlFailure => ({ retriable: true, retryAfterMs });
const forGood: UrlFailure = { retriable: false }; // a 404, a TLS failure

describe('earliestRetryAfterMs: the next attempt comes when the earliest URL is ready', () => {
  it.each<[string, UrlFailure[], number | undefined]>([
    ['no URL failed', [], undefined],
    ['one URL without a Retry-After', [plain], undefined],
    ['one URL with one', [wait(30_000)], 30_000],
    [
      '5 h, then a plain 500: the schedule (was: dead-lettered beyond the cutoff)',
      [wait(5 * H), plain],
      undefined,
    ],
    [
      '3 h, then a timeout: the schedule (was: the backup retried 3 h later)',
      [wait(3 * H), plain],
      undefined,
    ],
    ['a plain failure first, then a Retry-After', [plain, wait(H)], undefined],
    ['every URL sent one: the shortest', [wait(3 * H), wait(60_000), wait(H)], 60_000],
    ['a Retry-After of 0 counts', [wait(H), wait(0)], 0],
    ['a URL failed for good is ignored', [forGood, wait(H)], H],
    ['a URL failed for good without one does not force the schedule', [wait(2 * H), forGood], 2 * H],
    ['every URL failed for good', [forGood, forGood], undefined],
    [
      'a Retry-After on a URL failed for good is ignored',
      [{ retriable: false, retryAfterMs: 60_000 }, wait(H)],
      H,
    ],
  ])('%s', (_, failures, expected) => {
    expect(earliestRetryAfterMs(failures)).toBe(expected);
  });
});
