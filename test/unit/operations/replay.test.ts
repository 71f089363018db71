import type { Admin, Kafka } from 'kafkajs';
import { Registry } from 'prom-client';
import type { AvroCodec } from '../../../src/avro/codec';
import type { BatchingProducer } from '../../../src/kafka/batching-producer';
import type { Follower } from '../../../src/kafka/follower';
import { silentLogger } from '../../../src/observability/logger';
import { ReplayRunningError, toOperationsHttpError } from '../../../src/operations/errors';
import { createOperationsMetrics } from '../../../src/operations/metrics';
import { Replays } from '../../../src/operations/replay';
import { REPLAY_STALE_MS, ReplayBoard } from '../../../src/operations/replay-board';
import type { CatalogView } from '../../../src/records/catalog-model';
import type { EventCodec } from '../../../src/records/event';
import type { ReplayProgress } from '../../../src/records/replay';

/** A replay's reading of the events topic, held until the test ends it. */
const followers: { finish(): void }[] = [];
jest.mock('../../../src/kafka/follower', () => ({
  startFollower: async (): Promise<Partial<Follower>> => {
    let finish!: () => void;
    const caughtUp = new Promise<void>((resolve) => (finish = resolve));
    followers.push({ finish });
    return { ranges: [], whenCaughtUp: () => caughtUp, stop: async () => finish() };
  },
}));

const avro = { encode: () => Buffer.alloc(0) } as unknown as AvroCodec;

function setup() {
  let nowMs = 1_000_000;
  const clock = { now: () => nowMs };
  const producer = { send: async () => undefined } as unknown as BatchingProducer;
  const board = new ReplayBoard({
    kafka: {} as Kafka,
    admin: {} as Admin,
    avro,
    producer,
    topic: 'h.replays',
    clientId: 'h',
    clock,
    logger: silentLogger(),
  });
  const replays = new Replays({
    kafka: {} as Kafka,
    admin: {} as Admin,
    catalog: { destination: (id: string) => ({ id, enabled: true }) } as unknown as CatalogView,
    events: {} as EventCodec,
    router: { route: async () => 1 },
    board,
    eventsTopic: 'h.events',
    clientId: 'h',
    metrics: createOperationsMetrics(new Registry(), {
      dlqCounts: () => ({ tasks: 0, pendingTasks: 0, undecodable: 0 }),
      attemptsKept: () => ({ count: 0, bytes: 0, read: 0 }),
    }),
    clock,
    logger: silentLogger(),
  });
  return { replays, board, advance: (ms: number) => (nowMs += ms) };
}

const until = async (condition: () => boolean) => {
  const deadline = Date.now() + 2_000;
  while (!condition() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
};

/** A replay that another process runs, as the shared board shows it. */
const elsewhere = (destinationId: string): ReplayProgress => ({
  id: 'rpl_elsewhere',
  destinationId,
  sinceMs: 0,
  state: 'running',
  eventsRead: 0,
  eventsSkipped: 0,
  tasksWritten: 0,
  startedAtMs: 1_000_000,
});

describe('a replay started twice for one destination', () => {
  afterEach(() => {
    for (const f of followers.splice(0)) f.finish();
  });

  it('is refused (409 replay_running) while the first runs on this process, and allowed once it is done', async () => {
    const { replays } = setup();
    const first = replays.start('dst_1', 0);
    expect(() => replays.start('dst_1', 0)).toThrow(ReplayRunningError);
    expect(() => replays.start('dst_1', 5_000)).toThrow(
      expect.objectContaining({ code: 'replay_running', replayId: first.id }),
    );
    const refused = (() => {
      try {
        replays.start('dst_1', 0);
      } catch (err) {
        return toOperationsHttpError(err);
      }
    })();
    expect(refused).toMatchObject({ status: 409, code: 'replay_running', extra: { replayId: first.id } });
    // Another destination is not held up.
    expect(replays.start('dst_2', 0).state).toBe('running');

    await until(() => followers.length === 2);
    followers[0]!.finish();
    await until(() => replays.get(first.id).state === 'done');
    expect(replays.start('dst_1', 0).state).toBe('running');
  });

  it('is refused while another process runs one, unless that process stopped reporting', async () => {
    const { replays, board, advance } = setup();
    await board.publish(elsewhere('dst_1'), true);
    expect(() => replays.start('dst_1', 0)).toThrow(
      expect.objectContaining({ code: 'replay_running', replayId: 'rpl_elsewhere' }),
    );
    // The other process died: its replay reads as failed after REPLAY_STALE_MS.
    advance(REPLAY_STALE_MS + 1);
    expect(replays.start('dst_1', 0).state).toBe('running');
  });
});
