import { z } from 'zod';
import { parseSecretsKey } from '../security/secrets';

/**
 * Small zod helpers for reading environment variables: every value arrives as a string (or is
 * absent), and an empty string counts as absent so `FOO= npm start` means "use the default".
 */
const blankToUndefined = (value: unknown) => (value === '' ? undefined : value);

export const envString = () => z.preprocess(blankToUndefined, z.string().trim().min(1));

export const envInt = (opts: { min: number; max: number }) =>
  z.preprocess(
    blankToUndefined,
    z
      .string()
      .regex(/^-?\d+$/, 'expected an integer')
      .transform(Number)
      .pipe(z.number().int().min(opts.min).max(opts.max)),
  );

export const envBool = () =>
  z.preprocess(
    blankToUndefined,
    z
      .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'expected true or false' })
      .transform((v) => v === 'true' || v === '1' || v === 'yes'),
  );

/** `host:port` list, comma separated. */
export const envBrokers = () =>
  z.preprocess(
    blankToUndefined,
    z.string().transform((value, ctx) => {
      const brokers = value
        .split(',')
        .map((b) => b.trim())
        .filter(Boolean);
      const bad = brokers.find(
        (b) => !/^[A-Za-z0-9.-]+:\d{1,5}$/.test(b) && !/^\[[0-9a-fA-F:]+\]:\d{1,5}$/.test(b),
      );
      if (brokers.length === 0 || bad !== undefined) {
        ctx.addIssue({
          code: 'custom',
          message: `expected comma-separated host:port pairs, got '${bad ?? value}'`,
        });
        return z.NEVER;
      }
      return brokers;
    }),
  );

export const envUrl = () =>
  z.preprocess(
    blankToUndefined,
    z.string().refine((value) => {
      try {
        const url = new URL(value);
        return url.protocol === 'http:' || url.protocol === 'https:';
      } catch {
        return false;
      }
    }, 'expected an http(s) URL'),
  );

const DURATION_UNITS_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses `500ms`, `10s`, `1m`, `4h`, `1d` (and plain milliseconds) into milliseconds. */
export function parseDurationMs(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(text.trim());
  if (!match) return undefined;
  const value = Number(match[1]) * DURATION_UNITS_MS[match[2] ?? 'ms']!;
  return Number.isFinite(value) ? Math.round(value) : undefined;
}

export const envDurationMs = () =>
  z.preprocess(
    blankToUndefined,
    z.string().transform((value, ctx) => {
      const ms = parseDurationMs(value);
      if (ms === undefined) {
        ctx.addIssue({
          code: 'custom',
          message: `expected a duration such as 500ms, 10s, 5m, 4h; got '${value}'`,
        });
        return z.NEVER;
      }
      return ms;
    }),
  );

/** A 32-byte key given as base64 (HOOKLINE_SECRETS_KEY); messages never quote the value. */
export const envSecretsKey = () =>
  z.preprocess(
    blankToUndefined,
    z.string().transform((value, ctx) => {
      const key = parseSecretsKey(value);
      if (typeof key === 'string') {
        ctx.addIssue({ code: 'custom', message: key });
        return z.NEVER;
      }
      return key;
    }),
  );
