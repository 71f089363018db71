import { classifyCommand, fenceKind, openQuoteAfter, shellCommands } from '../../../tools/docs/commands';

describe('fenceKind', () => {
  it.each([
    ['sh', 'commands'],
    ['bash', 'commands'],
    ['console', 'commands'],
    ['sh example', 'example'],
    ['shell  example', 'example'],
    ['ts', 'other'],
    ['', 'other'],
    ['json example', 'other'],
  ])('%j → %s', (info, kind) => {
    expect(fenceKind(info)).toBe(kind);
  });
});

describe('shellCommands', () => {
  const fence = (info: string, ...body: string[]) => ({ info, line: 10, body });

  it.each([
    ['one per line', fence('sh', 'npm ci', 'npm test'), ['npm ci@11', 'npm test@12']],
    ['comments and blanks dropped', fence('sh', '# set up', '', 'npm start'), ['npm start@13']],
    ['&& split', fence('sh', 'npm ci && npm start'), ['npm ci@11', 'npm start@11']],
    ['continuation', fence('sh', 'curl -s \\', '  localhost:8080'), ['curl -s localhost:8080@11']],
    [
      'open quote',
      fence('sh', 'curl -d \'{"a":1,', '  "b":2}\'', 'npm test'),
      ['curl -d \'{"a":1, "b":2}\'@11', 'npm test@13'],
    ],
    [
      'console prompts',
      fence('console', '$ npm run stack -- up', 'KAFKA_BROKERS=x'),
      ['npm run stack -- up@11'],
    ],
  ])('%s', (_name, f, expected) => {
    expect(shellCommands(f).map((c) => `${c.text}@${c.line}`)).toEqual(expected);
  });
});

describe('openQuoteAfter', () => {
  it.each([
    [`echo 'a`, undefined, `'`],
    [`b' c`, `'`, undefined],
    [`echo "it's"`, undefined, undefined],
    [`echo \\'`, undefined, undefined],
    [`echo # it's a comment`, undefined, undefined],
  ])('%j (open %j) → %j', (text, open, expected) => {
    expect(openQuoteAfter(text, open)).toBe(expected);
  });
});

describe('classifyCommand', () => {
  const runnable = ['npm run hookline -- --help'];
  it.each([
    ['npm run hookline -- --help', { kind: 'run' }],
    ['npm  run hookline  -- --help', { kind: 'run' }],
    ['npm start', { kind: 'npm-script', script: 'start' }],
    ['npm test', { kind: 'npm-script', script: 'test' }],
    ['npm run stack -- up', { kind: 'npm-script', script: 'stack' }],
    ['npm run -s stack -- up', { kind: 'npm-script', script: 'stack' }],
    ['HOOKLINE_ALLOWED_NETWORKS=127.0.0.0/8 npm start', { kind: 'npm-script', script: 'start' }],
    ['npm ci', { kind: 'npm-builtin' }],
    ['curl localhost:8080', { kind: 'unchecked' }],
    ['TOKEN=abc', { kind: 'unchecked' }],
    ['npx jest', { kind: 'unchecked' }],
  ])('%s', (command, check) => {
    expect(classifyCommand(command, runnable)).toEqual(check);
  });
});
