import { envMentions, isKnown } from '../../../tools/docs/env-names';

describe('envMentions', () => {
  it.each([
    ['in prose', 'Set HOOKLINE_HTTP_PORT to 80.', ['HOOKLINE_HTTP_PORT']],
    ['in code', '`KAFKA_BROKERS=localhost:9092 npm start`', ['KAFKA_BROKERS']],
    ['an assignment', 'HOOKLINE_ATTEMPT_INDEX=shared', ['HOOKLINE_ATTEMPT_INDEX']],
    [
      'registry',
      'SCHEMA_REGISTRY_URL and SCHEMA_REGISTRY_USERNAME',
      ['SCHEMA_REGISTRY_URL', 'SCHEMA_REGISTRY_USERNAME'],
    ],
    ['wildcard', 'the `HOOKLINE_CIRCUIT_*` settings', ['HOOKLINE_CIRCUIT_*']],
    ['bare prefix: none', 'variables named HOOKLINE_ or KAFKA_', []],
    ['inside a longer word: none', 'MY_KAFKA_BROKERS, XHOOKLINE_A', []],
    ['other prefixes: none', 'KAFKAJS_NO_PARTITIONER_WARNING, NODE_ENV', []],
    ['lower case: none', 'hookline_attempt_index_bytes', []],
    ['followed by lower case', 'HOOKLINE_WORKERSs', ['HOOKLINE_WORKERS']],
  ])('%s', (_name, text, names) => {
    expect(envMentions(text).map((m) => m.name + (m.wildcard ? '*' : ''))).toEqual(names);
  });

  it('gives 1-based lines', () => {
    expect(envMentions('a\nb KAFKA_SSL\n\nHOOKLINE_ROLES')).toEqual([
      { name: 'KAFKA_SSL', wildcard: false, line: 2 },
      { name: 'HOOKLINE_ROLES', wildcard: false, line: 4 },
    ]);
  });
});

describe('isKnown', () => {
  const known = new Set(['HOOKLINE_CIRCUIT_BREAKER', 'HOOKLINE_HTTP_PORT']);
  it.each([
    [{ name: 'HOOKLINE_HTTP_PORT', wildcard: false, line: 1 }, true],
    [{ name: 'HOOKLINE_HTTP_HOST', wildcard: false, line: 1 }, false],
    [{ name: 'HOOKLINE_CIRCUIT_', wildcard: true, line: 1 }, true],
    [{ name: 'HOOKLINE_RETRY_', wildcard: true, line: 1 }, false],
  ])('%o → %s', (mention, expected) => {
    expect(isKnown(mention, known)).toBe(expected);
  });
});
