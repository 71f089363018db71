import { EventEmitter } from 'node:events';
import type { Consumer } from 'kafkajs';
import { Committer } from '../../../src/kafka/committer';
import { PartitionOffsets } from '../../../src/kafka/offset-tracker';

/** A kafkajs consumer as the committer sees it: commitOffsets and the COMMIT_OFFSETS event. */
function consumerThat(running: () => boolean) {
  const emitter = new EventEmitter();
  const sent: unknown[] = [];
  const consumer = {
    events: { COMMIT_OFFSETS: 'consumer.commit_offsets' },
    on: (event: string, listener: () => void) => emitter.on(event, listener),
    commitOffsets: async (offsets: unknown[]) => {
      if (!running()) return; // as kafkajs does while its runner is not running
      sent.push(...offsets);
      emitter.emit('consumer.commit_offsets');
    },
  };
  return { consumer: consumer as unknown as Consumer, sent };
}

describe('Committer', () => {
  const commits = [
    {
      key: 't:0',
      topic: 't',
      partition: 0,
      commit: { offset: 11, metadata: null },
      release: false,
      tracker: new PartitionOffsets(),
    },
  ];

  it('tells a commit Kafka took from one kafkajs dropped without a word', async () => {
    let running = false;
    const { consumer, sent } = consumerThat(() => running);
    const committer = new Committer(consumer);
    expect(await committer.commit(commits)).toBe(false);
    expect(sent).toEqual([]);
    running = true;
    expect(await committer.commit(commits)).toBe(true);
    expect(sent).toEqual([{ topic: 't', partition: 0, offset: '11', metadata: null }]);
  });
});
