import { logFormat } from '../../../src/observability/logger';

describe('log format', () => {
  const cases: [string, { stdoutIsTTY: boolean; development: boolean }, 'json' | 'pretty'][] = [
    ['npm start at a terminal', { stdoutIsTTY: true, development: true }, 'pretty'],
    ['npm start piped or redirected', { stdoutIsTTY: false, development: true }, 'json'],
    ['the production start at a terminal', { stdoutIsTTY: true, development: false }, 'json'],
    ['the production start in a container', { stdoutIsTTY: false, development: false }, 'json'],
  ];
  it.each(cases)('%s', (_name, input, expected) => {
    expect(logFormat(input)).toBe(expected);
  });
});
