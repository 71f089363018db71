import { AssignerProtocol } from 'kafkajs';
import { producerSettings } from '../../src/kafka/client';
import { decodeHoles, RELEASED_METADATA } from '../../src/kafka/commit-holes';
import { ConcurrentConsumer } from '../../src/kafka/consumer';
import { createMetricsRegistry } from '../../src/observability/metrics';
import { createLogger } from '../../src/observability/logger';
import { uniquePrefix } from '../support/app';
import { consumerSuite } from '../support/consumers';
import { eventually } from '../support/eventually';

/**
 * A partition moving between two live members at a rebalance (src/kafka/handover.ts): the member
 * giving it up finishes what it had in flight there and releases it; the member taking it over
 * starts after that work instead of doing it again.
 */
describe('ConcurrentConsumer: handing a partition over at a rebalance', () => {
  const { kafka, memberKafka, admin, consumers } = consumerSuite('handover-test');
  /** The members' own log lines (debug), shown when a wait of the test times out. */
  const logLines: string[] = [];
  const memberLogger = (name: string) =>
    createLogger({
      level: 'debug',
      name,
      destination: { write: (line: string) => void logLines.push(line) },
    });
  /** `wait`, with the members' last log lines printed if it fails: what each waited for, and why. */
  async function telling<T>(wait: Promise<T>): Promise<T> {
    try {
      return await wait;
    } catch (err) {
      console.error(`the members' last log lines:\n${collapsed(logLines).slice(-150).join('\n')}`);
      throw err;
    }
  }
  /** The lines, a run of the same line (but its time) written once with its count: a retry loop hides nothing. */
  function collapsed(lines: string[]): string[] {
    const out: { line: string; key: string; count: number }[] = [];
    for (const line of lines) {
      const key = line.replace(/"time":"[^"]*",/, '');
      const last = out[out.length - 1];
      if (last?.key === key) last.count++;
      else out.push({ line: line.trimEnd(), key, count: 1 });
    }
    return out.map(({ line, count }) => (count > 1 ? `${line} (×${count}, the first shown)` : line));
  }

  async function send(topic: string, messages: { partition: number; value: string }[]): Promise<void> {
    const producer = kafka.producer(producerSettings());
    await producer.connect();
    await producer.send({ topic, acks: -1, messages: messages.map((m) => ({ ...m, key: m.value })) });
    await producer.disconnect();
  }

  /** `offset` or `offset holes h,…` per partition, and the metadata as stored. */
  async function commitPoints(topic: string, groupId: string) {
    const [entry] = await admin.fetchOffsets({ groupId, topics: [topic] });
    return entry!.partitions
      .sort((a, b) => a.partition - b.partition)
      .map(({ offset, metadata }) => {
        const holes = decodeHoles(Number(offset), metadata);
        return { point: holes.length > 0 ? `${offset} holes ${holes.join(',')}` : offset, metadata };
      });
  }

  /** The partitions each member of the group holds, once the group is stable. */
  async function assignment(groupId: string, topic: string): Promise<number[][] | undefined> {
    const { groups } = await admin.describeGroups([groupId]);
    const group = groups[0]!;
    if (group.state !== 'Stable') return undefined;
    return group.members.map(
      (m) => AssignerProtocol.MemberAssignment.decode(m.memberAssignment)?.assignment[topic] ?? [],
    );
  }

  /**
   * A topic of two partitions with `perPartition` messages each (`<partition>-<i>`), and members of
   * one group on it that note each message they handle (`<member>:<value>`); `x-3` stays in flight
   * until `release()`. The handover grace is long: an old owner that is alive must release.
   */
  async function handoverRig(name: string, perPartition: number) {
    const topic = `${uniquePrefix()}.${name}`;
    const groupId = `${topic}.group`;
    await admin.createTopics({
      topics: [{ topic, numPartitions: 2, replicationFactor: 1 }],
      waitForLeaders: true,
    });
    await send(
      topic,
      [0, 1].flatMap((partition) =>
        Array.from({ length: perPartition }, (_, i) => ({ partition, value: `${partition}-${i}` })),
      ),
    );
    logLines.length = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const handled: string[] = [];
    const member = (memberName: string) => {
      const consumer = new ConcurrentConsumer({
        kafka: memberKafka(), // a process of its own (see consumerSuite)
        admin,
        groupId,
        topics: [topic],
        maxInFlight: 100,
        commitIntervalMs: 50,
        sessionTimeoutMs: 6_000,
        handoverGraceMs: 60_000,
        logger: memberLogger(memberName),
        metrics: createMetricsRegistry({ defaultMetrics: false }),
        handler: async ({ message }) => {
          const value = message.value!.toString();
          handled.push(`${memberName}:${value}`);
          if (value.endsWith('-3')) await gate; // in flight when the partition moves
        },
      });
      consumers.push(consumer);
      return consumer;
    };
    return { topic, groupId, handled, release: () => release(), member };
  }

  it('the member taking a partition over does not handle again what the live member giving it up finished', async () => {
    const { topic, groupId, handled, release, member } = await handoverRig('handover', 10);
    await member('A').start();
    await eventually(
      async () => {
        const points = await commitPoints(topic, groupId);
        return points.every((p) => p.point === '10 holes 3') || undefined;
      },
      { what: 'A done with both partitions but 3, in flight' },
    );
    await member('B').start();
    await eventually(
      async () => {
        const held = await assignment(groupId, topic);
        return (held?.length === 2 && held.every((h) => h.length === 1)) || undefined;
      },
      { what: 'one partition each', timeoutMs: 30_000 },
    );
    release(); // A finishes its in-flight work on the partition it gave up, and releases it
    await send(topic, [
      { partition: 0, value: '0-10' },
      { partition: 1, value: '1-10' },
    ]);
    await telling(
      eventually(() => handled.filter((h) => h.endsWith('-10')).length === 2 || undefined, {
        what: 'the new messages handled',
        timeoutMs: 30_000,
      }),
    );

    const values = handled.map((h) => h.slice(2)).sort();
    expect(values).toEqual([...new Set(values)]); // nothing handled twice
    expect(values).toHaveLength(22);
    expect(handled.filter((h) => h.startsWith('B:'))).toHaveLength(1); // only the new message
    await eventually(
      async () => (await commitPoints(topic, groupId)).every((p) => p.point === '11') || undefined,
      { what: 'everything committed' },
    );

    // A graceful stop releases what it held: whoever comes next starts at once.
    await Promise.all(consumers.splice(0).map((c) => c.stop()));
    expect((await commitPoints(topic, groupId)).map((p) => p.metadata)).toEqual([
      RELEASED_METADATA,
      RELEASED_METADATA,
    ]);
  });

  it('a rebalance during the handover still waits for the member finishing the partition', async () => {
    const { topic, groupId, handled, release, member } = await handoverRig('handover-twice', 5);
    const members = async (n: number) =>
      telling(
        eventually(async () => (await assignment(groupId, topic))?.length === n || undefined, {
          what: `${n} members, stable`,
          timeoutMs: 30_000,
        }),
      );

    await member('A').start();
    await eventually(() => handled.length === 10 || undefined, { what: 'A handed everything out' });
    await member('B').start(); // one partition moves to B; A is still finishing it
    await members(2);
    // Another member joins before A released it: A no longer holds the partition, but says it is
    // still finishing it, so B keeps waiting for the release instead of handling x-3 again.
    await member('C').start();
    await members(3);
    release();
    await send(topic, [
      { partition: 0, value: '0-5' },
      { partition: 1, value: '1-5' },
    ]);
    await telling(
      eventually(() => handled.filter((h) => h.endsWith('-5')).length === 2 || undefined, {
        what: 'the new messages handled',
        timeoutMs: 30_000,
      }),
    );
    const values = handled.map((h) => h.slice(2)).sort();
    expect(values).toEqual([...new Set(values)]); // nothing handled twice
    expect(values).toHaveLength(12);
  });
});
