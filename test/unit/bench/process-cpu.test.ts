import {
  classify,
  formatSplit,
  parseStat,
  spentPer,
  type ClassifyOptions,
  type ProcessKind,
  type ProcessStat,
} from '../../../bench/lib/process-cpu';

describe('parseStat', () => {
  test.each([
    {
      name: 'a node process: ppid and utime + stime',
      line: '4242 (node) S 4200 4242 4200 0 -1 4194304 100 0 0 0 1234 56 0 0 20 0 11 0 100 0 0',
      expected: { pid: 4242, ppid: 4200, comm: 'node', ticks: 1234 + 56 },
    },
    {
      name: 'a command name with spaces and parentheses',
      line: '7 (a (b) c) R 1 7 7 0 -1 0 0 0 0 0 10 20 0 0 20 0 1 0 5 0 0',
      expected: { pid: 7, ppid: 1, comm: 'a (b) c', ticks: 30 },
    },
    { name: 'gone meanwhile (empty)', line: '', expected: undefined },
    { name: 'cut short', line: '9 (java) S 1', expected: undefined },
  ])('$name', ({ line, expected }) => {
    const pid = Number(line.split(' ')[0]) || 9;
    expect(parseStat(pid, line)).toEqual(expected);
  });
});

describe('classify', () => {
  const options: ClassifyOptions = {
    selfPid: 100,
    hooklinePids: [200, 300],
    commandLine: (pid) =>
      ({
        500: 'java -Xmx512m -cp /x/kafka_2.13-3.9.1.jar kafka.Kafka /tmp/server.properties',
        501: 'java -jar /c/apicurio-registry-app-3.0.9-runner.jar',
        502: 'java -jar /opt/other-service.jar',
      })[pid] ?? '',
  };
  const stat = (pid: number, ppid: number, comm = 'node'): ProcessStat => ({ pid, ppid, comm, ticks: 1 });

  test.each<[string, ProcessStat, ProcessKind | undefined]>([
    ['the bench process itself', stat(100, 1), 'this process'],
    ['a Hookline primary', stat(200, 100), 'Hookline'],
    ['a child of a Hookline primary', stat(201, 200), 'Hookline'],
    ['a second replica', stat(300, 100), 'Hookline'],
    ['another child of the bench: the harness', stat(400, 100), 'harness'],
    ['the Kafka broker', stat(500, 1, 'java'), 'Kafka broker'],
    ['the schema registry', stat(501, 1, 'java'), 'schema registry'],
    ['another java process', stat(502, 1, 'java'), undefined],
    ['anything else', stat(600, 1, 'bash'), undefined],
  ])('%s', (_name, p, expected) => {
    expect(classify(p, options)).toBe(expected);
  });

  test('without Hookline processes of its own, children of the bench are the harness', () => {
    expect(classify(stat(200, 100), { selfPid: 100, commandLine: () => '' })).toBe('harness');
  });
});

describe('spentPer', () => {
  test('µs per unit of each kind that spent CPU, never below 0', () => {
    const before = new Map<ProcessKind, number>([
      ['this process', 1_000],
      ['Kafka broker', 500],
      ['harness', 300],
    ]);
    const after = new Map<ProcessKind, number>([
      ['this process', 2_000],
      ['Kafka broker', 700],
      ['harness', 100], // a harness process gone meanwhile
      ['schema registry', 0],
    ]);
    expect(spentPer(before, after, 10_000)).toEqual(
      new Map<ProcessKind, number>([
        ['this process', 100],
        ['Kafka broker', 20],
      ]),
    );
  });
});

describe('formatSplit', () => {
  test('in a fixed order, whole µs', () => {
    const per = new Map<ProcessKind, number>([
      ['Kafka broker', 18.4],
      ['this process', 99.6],
      ['harness', 20],
    ]);
    expect(formatSplit(per)).toBe('this process 100, harness 20, Kafka broker 18');
  });
});
