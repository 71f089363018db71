import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { ConfigError } from '../../../src/core/errors';
import { createLogger } from '../../../src/observability/logger';
import { keyIdOf } from '../../../src/security/secrets';
import { localSecretsKey, localSecretsKeyFile } from '../../../tools/devstack/secrets-key';

describe('the development secrets key of `npm start`', () => {
  let cacheDir: string;
  let lines: string[];
  const logger = () =>
    createLogger({
      level: 'info',
      destination: new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(chunk.toString('utf8'));
          done();
        },
      }),
    });

  beforeEach(() => {
    cacheDir = mkdtempSync(path.join(os.tmpdir(), 'hookline-key-'));
    lines = [];
  });
  afterEach(() => rmSync(cacheDir, { recursive: true, force: true }));

  it('is generated once (mode 0600), kept across starts, and logged by file and key id only', async () => {
    const first = await localSecretsKey({ cacheDir, logger: logger() });
    expect(first).toHaveLength(32);
    const file = localSecretsKeyFile({ cacheDir });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(await localSecretsKey({ cacheDir, logger: logger() })).toEqual(first);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain('generated a development key');
    expect(lines[1]).toContain('using the development key');
    for (const line of lines) {
      expect(line).toContain(keyIdOf(first));
      expect(line).not.toContain(first.toString('base64'));
    }
    expect(readFileSync(file, 'utf8').trim()).toBe(first.toString('base64'));
  });

  it('refuses a key file that does not hold a 32-byte base64 key', async () => {
    await localSecretsKey({ cacheDir, logger: logger() });
    writeFileSync(localSecretsKeyFile({ cacheDir }), 'c2hvcnQ=\n');
    await expect(localSecretsKey({ cacheDir, logger: logger() })).rejects.toBeInstanceOf(ConfigError);
  });
});
