import { AssignerProtocol, type Cluster, type GroupDescription } from 'kafkajs';
import { advertisedUrlFor } from '../../../../src/operations/attempts/advertised-url';
import {
  ownersFromDescription,
  shardAssigners,
  SHARD_PROTOCOL,
  STICKY_SHARD_PROTOCOL,
} from '../../../../src/operations/attempts/shards';
import { attemptFromView, attemptView } from '../../../../src/operations/views';
import type { AttemptEntry } from '../../../../src/records/delivery-attempt';

const TOPIC = 'p.attempts';

function member(memberId: string, url: string | undefined, partitions: number[]) {
  return {
    memberId,
    clientId: 'hookline',
    clientHost: '/127.0.0.1',
    memberMetadata: AssignerProtocol.MemberMetadata.encode({
      version: 1,
      topics: [TOPIC],
      userData: Buffer.from(url ?? ''),
    }),
    memberAssignment: AssignerProtocol.MemberAssignment.encode({
      version: 1,
      assignment: { [TOPIC]: partitions, 'other.topic': [9] },
      userData: Buffer.alloc(0),
    }),
  };
}

function group(overrides: Partial<GroupDescription>): GroupDescription {
  return {
    groupId: 'p.attempt-index',
    state: 'Stable',
    protocol: SHARD_PROTOCOL,
    protocolType: 'consumer',
    errorCode: 0,
    members: [member('a', 'http://10.0.0.1:8080', [0, 2]), member('b', 'http://10.0.0.2:8080', [1])],
    ...overrides,
  } as GroupDescription;
}

describe('ownersFromDescription', () => {
  it('maps each partition of the topic to the URL its member advertised', () => {
    expect(ownersFromDescription(group({}), TOPIC)).toEqual(
      new Map([
        [0, 'http://10.0.0.1:8080'],
        [2, 'http://10.0.0.1:8080'],
        [1, 'http://10.0.0.2:8080'],
      ]),
    );
  });

  it.each([
    ['rebalancing', { state: 'PreparingRebalance' }],
    ['empty', { state: 'Empty', members: [] }],
    ['of another protocol (not Hookline’s assigner)', { protocol: 'RoundRobinAssigner' }],
  ] as const)('knows no owner while the group is %s', (_case, overrides) => {
    expect(ownersFromDescription(group(overrides as Partial<GroupDescription>), TOPIC)).toBeUndefined();
  });

  it('leaves out a member that advertised no URL', () => {
    const owners = ownersFromDescription(
      group({ members: [member('a', undefined, [0]), member('b', 'http://b', [1])] }),
      TOPIC,
    );
    expect(owners).toEqual(new Map([[1, 'http://b']]));
  });
});

describe('the shard assigners', () => {
  const cluster = {
    findTopicPartitionMetadata: () => [0, 1, 2, 3].map((partitionId) => ({ partitionId })),
  } as unknown as Cluster;
  /** A member's preferred (sticky) assigner, as its consumer makes it, and the metadata it joins with. */
  const joining = (url: string, held: number[]) => {
    const [sticky, roundRobin] = shardAssigners(TOPIC, url, () => new Set(held)).map((a) =>
      a({ cluster, groupId: 'p.attempt-index', logger: {} as never }),
    );
    return {
      sticky: sticky!,
      roundRobin: roundRobin!,
      metadata: sticky!.protocol({ topics: [TOPIC] }).metadata,
    };
  };

  it('offer the sticky protocol first, and round robin for members of the first version', () => {
    const { sticky, roundRobin } = joining('http://a', []);
    expect([sticky.name, roundRobin.name]).toEqual([STICKY_SHARD_PROTOCOL, SHARD_PROTOCOL]);
  });

  it('leave each member the partitions it held when another joins, and tell where each answers', async () => {
    const a = joining('http://a', [0, 1, 2, 3]);
    const b = joining('http://b', []);
    const members = [
      { memberId: 'b', memberMetadata: b.metadata },
      { memberId: 'a', memberMetadata: a.metadata },
    ];
    const assigned = await a.sticky.assign({ members, topics: [TOPIC] });
    const held = new Map(
      assigned.map((m) => [
        m.memberId,
        AssignerProtocol.MemberAssignment.decode(m.memberAssignment)!.assignment[TOPIC],
      ]),
    );
    expect(held.get('a')).toHaveLength(2);
    expect(held.get('b')).toHaveLength(2);
    expect([...held.get('a')!, ...held.get('b')!].sort()).toEqual([0, 1, 2, 3]);

    // The group's description, once stable, names each member's URL from its sticky metadata.
    const description = group({
      protocol: STICKY_SHARD_PROTOCOL,
      members: assigned.map((m) => ({
        memberId: m.memberId,
        clientId: 'hookline',
        clientHost: '/127.0.0.1',
        memberMetadata: (m.memberId === 'a' ? a : b).metadata,
        memberAssignment: m.memberAssignment,
      })),
    });
    expect(ownersFromDescription(description, TOPIC)).toEqual(
      new Map([...held].flatMap(([id, ps]) => ps!.map((p) => [p, `http://${id}`] as const))),
    );

    // The next join: a and b keep theirs, the newcomer gets one of each.
    const a2 = joining('http://a', held.get('a')!);
    const b2 = joining('http://b', held.get('b')!);
    const c = joining('http://c', []);
    const again = await a2.sticky.assign({
      members: [
        { memberId: 'a', memberMetadata: a2.metadata },
        { memberId: 'b', memberMetadata: b2.metadata },
        { memberId: 'c', memberMetadata: c.metadata },
      ],
      topics: [TOPIC],
    });
    const after = new Map(
      again.map((m) => [
        m.memberId,
        AssignerProtocol.MemberAssignment.decode(m.memberAssignment)!.assignment[TOPIC]!,
      ]),
    );
    for (const id of ['a', 'b']) expect(held.get(id)).toEqual(expect.arrayContaining(after.get(id)!));
    expect(after.get('c')).toHaveLength(1);
  });
});

describe('advertisedUrlFor', () => {
  it.each([
    [
      'the configured URL, without a trailing slash',
      { configured: 'http://10.1.2.3:8080/', host: '0.0.0.0', port: 1 },
      'http://10.1.2.3:8080',
    ],
    [
      'the address listened on, with the bound port',
      { configured: undefined, host: '127.0.0.1', port: 41234 },
      'http://127.0.0.1:41234',
    ],
    [
      'the host name for every IPv4 address',
      { configured: undefined, host: '0.0.0.0', port: 8080 },
      'http://pod-7:8080',
    ],
    [
      'the host name for every IPv6 address',
      { configured: undefined, host: '::', port: 8080 },
      'http://pod-7:8080',
    ],
    ['an IPv6 address in brackets', { configured: undefined, host: '::1', port: 8080 }, 'http://[::1]:8080'],
    [
      "the advertised host (a pod's IPv4 address)",
      { configured: undefined, advertisedHost: '10.1.2.3', host: '0.0.0.0', port: 8081 },
      'http://10.1.2.3:8081',
    ],
    [
      "the advertised host (a pod's IPv6 address), in brackets",
      { configured: undefined, advertisedHost: 'fd00:10:244::5', host: '::', port: 8081 },
      'http://[fd00:10:244::5]:8081',
    ],
    [
      'the configured URL over the advertised host',
      { configured: 'http://hookline-0.hookline:8081', advertisedHost: '10.1.2.3', host: '::', port: 1 },
      'http://hookline-0.hookline:8081',
    ],
  ])('%s', (_case, options, expected) => {
    expect(advertisedUrlFor({ ...options, hostname: () => 'pod-7' })).toBe(expected);
  });
});

describe('attemptFromView', () => {
  it.each<[string, AttemptEntry]>([
    [
      'a delivered attempt',
      {
        taskId: 'src:m1:dst',
        destinationId: 'dst',
        sourceId: 'src',
        messageId: 'm1',
        eventType: 'track',
        attempt: 1,
        atMs: 1_764_000_000_123,
        durationMs: 12,
        outcome: 'delivered',
        urls: [{ urlIndex: 0, result: 'success', status: 200, durationMs: 12 }],
      },
    ],
    [
      'a scheduled retry, with its detail and due time',
      {
        taskId: 'src:m2:dst',
        destinationId: 'dst',
        sourceId: 'src',
        messageId: 'm2',
        eventType: 'identify',
        attempt: 3,
        atMs: 1_764_000_000_000,
        durationMs: 5_001,
        outcome: 'retry_scheduled',
        detail: '1m',
        dueAtMs: 1_764_000_060_000,
        urls: [
          { urlIndex: 0, result: 'timeout', durationMs: 5_000, error: 'no answer within 5000 ms' },
          { urlIndex: 1, result: 'http_5xx', status: 503, durationMs: 1 },
        ],
      },
    ],
  ])('gives back the entry another process showed: %s', (_case, entry) => {
    const shown = JSON.parse(JSON.stringify(attemptView(entry)));
    expect(attemptFromView('dst', shown)).toEqual(entry);
  });
});
