import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../../src/observability/logger';
import { SECRETS_KEY_BYTES, keyIdOf, parseSecretsKey } from '../../src/security/secrets';
import { ConfigError } from '../../src/core/errors';
import { resolveCacheDir, type CacheDirOptions } from './paths';

/** Where `npm start` keeps its development key: `<cache dir>/secrets.key` (mode 0600). */
export function localSecretsKeyFile(options: CacheDirOptions = {}): string {
  return path.join(resolveCacheDir(options), 'secrets.key');
}

/**
 * The key `npm start` uses when HOOKLINE_SECRETS_KEY is unset: read from the key file, or
 * generated and written there (mode 0600, its folder 0700) on the first start. Kept, because the
 * local catalog outlives the process: a new key each start would leave every destination's
 * secrets unreadable. Logs one line with the file and key id, never the key. Production never
 * comes here: its entry point refuses to start without HOOKLINE_SECRETS_KEY.
 */
export async function localSecretsKey(options: CacheDirOptions & { logger: Logger }): Promise<Buffer> {
  const file = localSecretsKeyFile(options);
  let generated = false;
  let text = await readIfExists(file);
  if (text === undefined) {
    await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    try {
      // 'wx': never overwrite a key another start wrote meanwhile; read that one instead.
      await writeFile(file, `${randomBytes(SECRETS_KEY_BYTES).toString('base64')}\n`, {
        mode: 0o600,
        flag: 'wx',
      });
      generated = true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    text = (await readIfExists(file)) ?? '';
  }
  const key = parseSecretsKey(text);
  if (typeof key === 'string') throw new ConfigError('HOOKLINE_SECRETS_KEY', `${file}: ${key}`);
  options.logger.info(
    { file, keyId: keyIdOf(key) },
    `HOOKLINE_SECRETS_KEY is unset: ${generated ? 'generated a development key in' : 'using the development key from'} ${file}`,
  );
  return key;
}

async function readIfExists(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}
