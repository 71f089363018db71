import type { Admin } from 'kafkajs';
import { RELEASED_METADATA } from '../../../src/kafka/commit-holes';
import { takeOverPoint } from '../../../src/kafka/committed';

/** An admin that answers the group's committed offset of partition 0 and the topic's offsets. */
function admin(
  committed: { offset: string; metadata: string | null } | undefined,
  low: string,
  high: string,
) {
  const fake: Pick<Admin, 'fetchOffsets' | 'fetchTopicOffsets'> = {
    fetchOffsets: async () => [
      {
        topic: 't',
        partitions: [
          { partition: 0, offset: committed?.offset ?? '-1', metadata: committed?.metadata ?? null },
        ],
      },
    ],
    fetchTopicOffsets: async () => [{ partition: 0, offset: high, high, low }],
  };
  return fake;
}

describe('takeOverPoint (where a partition is taken over from)', () => {
  it.each([
    {
      what: 'committed, not released: the committed point',
      committed: { offset: '12', metadata: null },
      fromLogStart: true,
      expected: { offset: 12, holes: [], released: false },
    },
    {
      what: 'committed and released: the committed point',
      committed: { offset: '12', metadata: RELEASED_METADATA },
      fromLogStart: true,
      expected: { offset: 12, holes: [], released: true },
    },
    {
      what: 'never committed, holding records: its start, not released',
      committed: undefined,
      fromLogStart: true,
      expected: { offset: 5, holes: [], released: false },
    },
    {
      what: 'never committed, for a consumer that does not look up: none',
      committed: undefined,
      fromLogStart: false,
      expected: undefined,
    },
  ])('$what', async ({ committed, fromLogStart, expected }) => {
    expect(await takeOverPoint(admin(committed, '5', '20'), 'g', 't', 0, fromLogStart)).toEqual(expected);
  });

  it('fails, to be read again, when the topic offsets do not list the partition yet', async () => {
    await expect(takeOverPoint(admin(undefined, '5', '20'), 'g', 't', 1, true)).rejects.toThrow(
      /partition 1/,
    );
  });

  it('takes over a partition never committed and empty from scratch', async () => {
    expect(await takeOverPoint(admin(undefined, '20', '20'), 'g', 't', 0, true)).toBeUndefined();
  });
});
