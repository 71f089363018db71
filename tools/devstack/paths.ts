import os from 'node:os';
import path from 'node:path';

/**
 * Versions of the local stack, pinned. Kafka 3.9.1 rather than 4.x: 4.0 removed old protocol
 * versions (KIP-896) and kafkajs 2.2.4 is no longer maintained, so 3.9 carries no such risk.
 * Apicurio 3.0.9: the last 3.x release on Maven Central that runs on Java 17 (3.3.x needs 21).
 */
export const KAFKA_VERSION = '3.9.1';
export const APICURIO_VERSION = '3.0.9';

export interface CacheDirOptions {
  cacheDir?: string;
  env?: NodeJS.ProcessEnv;
}

/** `cacheDir` option, else env `HOOKLINE_CACHE_DIR`, else `~/.cache/hookline`. */
export function resolveCacheDir(options: CacheDirOptions): string {
  const env = options.env ?? process.env;
  return path.resolve(
    options.cacheDir ?? env.HOOKLINE_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'hookline'),
  );
}

/** Downloaded distributions, one folder per name, each with a `manifest.json`. */
export function distDir(cacheDir: string): string {
  return path.join(cacheDir, 'dist');
}

/** State of the detached stack started by `npm run stack -- up`. */
export function stackStateDir(cacheDir: string): string {
  return path.join(cacheDir, 'stack');
}

export function stackStateFile(cacheDir: string): string {
  return path.join(stackStateDir(cacheDir), 'state.json');
}

/** `$JAVA_HOME/bin/java` when JAVA_HOME is set, else `java` from PATH. */
export function javaCommand(env: NodeJS.ProcessEnv = process.env): string {
  return env.JAVA_HOME ? path.join(env.JAVA_HOME, 'bin', 'java') : 'java';
}
