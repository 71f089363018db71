import { tally, type DestinationObservation } from '../../../tools/chaos/ledger';

const healthy = (deliveredMessageIds: string[]): DestinationObservation => ({
  name: 'healthy',
  kind: 'healthy',
  destinationId: 'd1',
  deliveredMessageIds,
});
const hung: DestinationObservation = {
  name: 'hung',
  kind: 'hung',
  destinationId: 'd2',
  deliveredMessageIds: [],
};

describe('chaos ledger', () => {
  it.each([
    {
      case: 'every event once: nothing lost, no duplicates',
      delivered: ['a', 'b', 'c'],
      dlq: [],
      expected: { delivered: 3, deliveries: 3, duplicates: 0, lost: 0, deadLettered: {} },
    },
    {
      case: 'repeats count as duplicates, not as more events',
      delivered: ['a', 'a', 'b', 'c', 'c', 'c'],
      dlq: [],
      expected: { delivered: 3, deliveries: 6, duplicates: 3, lost: 0 },
    },
    {
      case: 'an event dead-lettered with a reason is accounted for',
      delivered: ['a', 'b'],
      dlq: [{ messageId: 'c', destinationId: 'd1', reason: 'retry_cutoff' }],
      expected: { delivered: 2, lost: 0, deadLettered: { retry_cutoff: 1 } },
    },
    {
      case: 'a dead letter without a reason, or for another destination, is not',
      delivered: ['a'],
      dlq: [
        { messageId: 'b', destinationId: 'd1', reason: '' },
        { messageId: 'c', destinationId: 'd9', reason: 'retry_cutoff' },
      ],
      expected: { delivered: 1, lost: 2, lostSample: ['b', 'c'], deadLettered: {} },
    },
    {
      case: 'deliveries of events the client was not told were accepted are ignored',
      delivered: ['a', 'b', 'c', 'zz'],
      dlq: [],
      expected: { delivered: 3, deliveries: 3, duplicates: 0, lost: 0 },
    },
  ])('$case', ({ delivered, dlq, expected }) => {
    const ledger = tally({ accepted: ['a', 'b', 'c'], destinations: [healthy(delivered)], deadLetters: dlq });
    expect(ledger.destinations[0]).toMatchObject(expected);
    expect(ledger.lost).toBe(expected.lost);
  });

  it('a hung destination accounts only through the dead-letter topic; shares are over every destination', () => {
    const ledger = tally({
      accepted: ['a', 'b', 'c', 'd'],
      destinations: [healthy(['a', 'b', 'c', 'd', 'a']), hung],
      deadLetters: [
        { messageId: 'a', destinationId: 'd2', reason: 'circuit_open' },
        { messageId: 'b', destinationId: 'd2', reason: 'retry_cutoff' },
        { messageId: 'c', destinationId: 'd2', reason: 'retry_cutoff' },
      ],
    });
    expect(ledger.destinations[1]).toMatchObject({
      delivered: 0,
      deadLettered: { circuit_open: 1, retry_cutoff: 2 },
      lost: 1,
      lostSample: ['d'],
    });
    expect(ledger).toMatchObject({ lost: 1, deliveries: 5, duplicates: 1, duplicateShare: 0.2 });
  });

  it('the lost sample is bounded', () => {
    const accepted = Array.from({ length: 100 }, (_, i) => `m${i}`);
    const ledger = tally({ accepted, destinations: [healthy([])], deadLetters: [] });
    expect(ledger.destinations[0]).toMatchObject({ lost: 100, lostSample: ['m0', 'm1', 'm2', 'm3', 'm4'] });
  });
});
