import { z } from 'zod';
import { envDurationMs, envInt } from '../../../src/config/env';
import { ENV_SECTIONS, envSchema } from '../../../src/config/schema';
import {
  configSections,
  envEntries,
  formatDefault,
  formatDurationMs,
} from '../../../tools/docs/config-reference';
import { documentedNames } from '../../../tools/docs/check-env';
import { renderConfigurationReference } from '../../../tools/docs/config-reference';

describe('formatDurationMs', () => {
  it.each([
    [0, '0'],
    [5, '5ms'],
    [250, '250ms'],
    [1_500, '1500ms'],
    [30_000, '30s'],
    [90_000, '90s'],
    [600_000, '10m'],
    [3_600_000, '1h'],
    [14_400_000, '4h'],
    [86_400_000, '1d'],
  ])('%d → %s', (ms, text) => {
    expect(formatDurationMs(ms)).toBe(text);
  });
});

describe('formatDefault', () => {
  it.each([
    [8080, undefined, '8080'],
    [true, undefined, 'true'],
    [10_000, 'duration', '10s'],
    [[10_000, 60_000, 3_600_000], 'durations', '10s,1m,1h'],
    [['ingest', 'router'], 'list', 'ingest,router'],
  ] as const)('%j (%s) → %s', (value, show, text) => {
    expect(formatDefault(value, show)).toBe(text);
  });
});

describe('envEntries', () => {
  it('reads description, accepted values, default and shown default from the schema', () => {
    const entries = envEntries({
      A_TIMEOUT: envDurationMs().default(30_000).describe('How long.'),
      A_PORT: envInt({ min: 1, max: 65_535 }).optional().meta({ description: 'Port.', shownDefault: 'none' }),
      A_COUNT: envInt({ min: 0, max: 10 }).optional().describe('Count.'),
    });
    expect(entries).toEqual([
      {
        name: 'A_TIMEOUT',
        accepts: expect.stringMatching(/^duration/),
        shownDefault: '`30s`',
        description: 'How long.',
      },
      { name: 'A_PORT', accepts: 'integer, 1 to 65,535', shownDefault: 'none', description: 'Port.' },
      { name: 'A_COUNT', accepts: 'integer, 0 to 10', shownDefault: 'unset', description: 'Count.' },
    ]);
  });

  it('names every key that lacks a description or its accepted values', () => {
    expect(() =>
      envEntries({ NO_DESCRIPTION: envInt({ min: 0, max: 1 }), NO_VALUES: z.string().describe('x') }),
    ).toThrow(/NO_DESCRIPTION: no description[\s\S]*NO_VALUES: no EnvValues/);
  });

  it('finds a description and accepted values for every key of the real schema', () => {
    const entries = configSections().flatMap((s) => s.entries);
    expect(entries.map((e) => e.name).sort()).toEqual(Object.keys(envSchema.shape).sort());
    for (const e of entries) {
      expect(e.description.length).toBeGreaterThan(10);
      expect(e.accepts).not.toBe('');
    }
  });

  it('puts every key of the schema in exactly one section', () => {
    const sectioned = ENV_SECTIONS.flatMap((s) => Object.keys(s.keys));
    expect(new Set(sectioned).size).toBe(sectioned.length);
    expect(sectioned.sort()).toEqual(Object.keys(envSchema.shape).sort());
  });
});

describe('the rendered reference', () => {
  it('documents each variable, as the docs check reads it', () => {
    const sections = [
      { title: 'S', entries: envEntries({ A_B: envInt({ min: 0, max: 1 }).default(1).describe('d') }) },
    ];
    const tool = { name: 'T_X', readBy: 'f.ts', tool: 'tests', description: 'a | b' };
    const text = renderConfigurationReference(sections, [tool]);
    expect([...documentedNames(text)].sort()).toEqual(['A_B', 'T_X']);
    expect(text).toContain('a \\| b');
  });
});
