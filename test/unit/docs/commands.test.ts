import { classifyCommand, openQuoteAfter, shellCommands } from '../../../tools/docs/commands';

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
      'a loop: each line its own command',
      fence(
        'sh',
        'for i in 1 2; do',
        '  npm run -s hookline -- attempts d | grep delivered && break',
        'done',
      ),
      ['for i in 1 2; do@11', 'npm run -s hookline -- attempts d | grep delivered@12', 'break@12', 'done@13'],
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
  it.each([
    ['npm run hookline -- --help', { kind: 'npm-script', script: 'hookline' }],
    [
      'npm  run --silent hookline  -- attempts d | grep delivered',
      { kind: 'npm-script', script: 'hookline' },
    ],
    ['npm start', { kind: 'npm-script', script: 'start' }],
    ['npm test', { kind: 'npm-script', script: 'test' }],
    ['npm run stack -- up', { kind: 'npm-script', script: 'stack' }],
    ['npm run -s stack -- up', { kind: 'npm-script', script: 'stack' }],
    ['HOOKLINE_ALLOWED_NETWORKS=127.0.0.0/8 npm start', { kind: 'npm-script', script: 'start' }],
    ['npm ci', { kind: 'npm-builtin' }],
    ['curl localhost:8080', { kind: 'other' }],
    ['TOKEN=abc', { kind: 'other' }],
    ['npx jest', { kind: 'other' }],
  ])('%s', (command, check) => {
    expect(classifyCommand(command)).toEqual(check);
  });
});
