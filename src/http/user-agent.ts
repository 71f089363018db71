import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

/** The service's package, or the producer library's (`packages/producer`, built from these sources). */
const hooklinePackage = z.object({
  name: z.enum(['hookline', '@hookline/producer']),
  version: z.string().min(1),
});

let cachedVersion: string | undefined;

/**
 * Hookline's version, read once from its package.json (found above this file in src/ and dist/),
 * or, in the installed producer library, the library's.
 */
export function hooklineVersion(): string {
  cachedVersion ??= findVersion(__dirname);
  return cachedVersion;
}

/** The default `User-Agent` of webhook requests: `Hookline/<version>`. */
export function defaultUserAgent(): string {
  return `Hookline/${hooklineVersion()}`;
}

function findVersion(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file)) {
      const parsed = hooklinePackage.safeParse(readJson(file));
      if (parsed.success) return parsed.data.version;
    }
    if (path.dirname(dir) === dir) return '0.0.0';
  }
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined; // unreadable or not JSON: not ours, keep looking
  }
}
