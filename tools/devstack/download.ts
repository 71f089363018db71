import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../src/observability/logger';
import { StackError } from './errors';
import { withFileLock } from './lock';
import { verifyManifest, writeManifest } from './manifest';
import { copyArtifact, copyDependencies, untar } from './maven';
import { APICURIO_VERSION, KAFKA_VERSION, distDir } from './paths';
import { isPidAlive } from './pids';

/** A first download on a fresh machine (about 150 MB through Maven) must finish within this. */
const DOWNLOAD_LOCK_TIMEOUT_MS = 20 * 60_000;

export interface Distributions {
  /** Folder of Kafka's jars: the classpath is `<kafkaLibDir>/*`. */
  kafkaLibDir: string;
  /** `apicurio-registry-app-<version>-runner.jar` (its `lib/` sits next to it). */
  registryJar: string;
}

/**
 * Makes sure Kafka and Apicurio are in the cache and intact, downloading what is missing or
 * corrupt. Both are checked at once; downloads are serialised by one lock (two Maven runs must
 * not write ~/.m2 at once, and two processes must not download the same thing).
 */
export async function ensureDistributions(options: {
  cacheDir: string;
  logger: Logger;
}): Promise<Distributions> {
  const { cacheDir, logger } = options;
  const kafka = ensureCached({
    cacheDir,
    name: `kafka-${KAFKA_VERSION}`,
    logger,
    fetchInto: async ({ outputDir, workDir }) => {
      await copyDependencies({
        workDir,
        logger,
        outputDir,
        dependencies: [
          { groupId: 'org.apache.kafka', artifactId: 'kafka_2.13', version: KAFKA_VERSION },
          { groupId: 'ch.qos.reload4j', artifactId: 'reload4j', version: '1.2.25' },
          { groupId: 'org.slf4j', artifactId: 'slf4j-reload4j', version: '1.7.36' },
        ],
      });
    },
  });
  const registry = ensureCached({
    cacheDir,
    name: `apicurio-registry-${APICURIO_VERSION}`,
    logger,
    fetchInto: async ({ outputDir, workDir }) => {
      const archiveDir = path.join(workDir, 'archive');
      await fs.mkdir(archiveDir);
      await copyArtifact({
        workDir,
        logger,
        outputDir: archiveDir,
        artifact: `io.apicurio:apicurio-registry-app:${APICURIO_VERSION}:tar.gz:all`,
      });
      await untar({
        archive: path.join(archiveDir, `apicurio-registry-app-${APICURIO_VERSION}-all.tar.gz`),
        outputDir,
      });
    },
  });
  const [kafkaLibDir, registryDir] = await Promise.all([kafka, registry]);
  const registryJar = path.join(registryDir, `apicurio-registry-app-${APICURIO_VERSION}-runner.jar`);
  return { kafkaLibDir, registryJar };
}

interface EnsureCachedOptions {
  cacheDir: string;
  /** Folder name under `<cacheDir>/dist`. */
  name: string;
  logger: Logger;
  /** Fills `outputDir` (empty); `workDir` is scratch space. */
  fetchInto: (dirs: { outputDir: string; workDir: string }) => Promise<void>;
}

/**
 * `<cacheDir>/dist/<name>` exists only when complete: files are downloaded into a scratch folder,
 * hashed into `manifest.json`, and only then renamed into place (atomic), so an interrupted
 * download is never used. Every start re-checks the manifest and re-downloads on a mismatch.
 */
async function ensureCached(options: EnsureCachedOptions): Promise<string> {
  const { cacheDir, name, logger } = options;
  const root = distDir(cacheDir);
  const target = path.join(root, name);
  await fs.mkdir(root, { recursive: true });
  if ((await verifyManifest({ dir: target })).ok) return target;
  return withFileLock({
    lockPath: path.join(root, '.download.lock'),
    timeoutMs: DOWNLOAD_LOCK_TIMEOUT_MS,
    logger,
    task: async () => {
      const check = await verifyManifest({ dir: target });
      if (check.ok) return target; // Another process finished it while we waited.
      await removeAbandonedScratch({ root });
      await moveAsideAndDelete({ dir: target, root });
      logger.info({ name, reason: check.reason, cacheDir }, 'downloading');
      const startedMs = Date.now();
      const workDir = path.join(root, `.tmp-${name}-${process.pid}-${randomBytes(4).toString('hex')}`);
      const outputDir = path.join(workDir, 'out');
      await fs.mkdir(outputDir, { recursive: true });
      try {
        await options.fetchInto({ outputDir, workDir });
        const manifest = await writeManifest({ dir: outputDir });
        await fs.rename(outputDir, target);
        logger.info(
          { name, files: Object.keys(manifest.files).length, durationMs: Date.now() - startedMs },
          'downloaded and verified',
        );
      } catch (err) {
        if (err instanceof StackError) throw err;
        throw new StackError(`could not download ${name}`, { stage: 'download', cause: err });
      } finally {
        await fs.rm(workDir, { recursive: true, force: true });
      }
      return target;
    },
  });
}

/** Scratch folders of downloads whose process died (`.tmp-<name>-<pid>-<random>`). */
async function removeAbandonedScratch(options: { root: string }): Promise<void> {
  for (const entry of await fs.readdir(options.root)) {
    const match = /^\.(tmp|trash)-.*-(\d+)-[0-9a-f]+$/.exec(entry);
    if (match && !isPidAlive(Number(match[2]))) {
      await fs.rm(path.join(options.root, entry), { recursive: true, force: true });
    }
  }
}

/** Renames a corrupt or partial folder out of the way (atomic), then deletes it. */
async function moveAsideAndDelete(options: { dir: string; root: string }): Promise<void> {
  const trash = path.join(
    options.root,
    `.trash-${path.basename(options.dir)}-${process.pid}-${randomBytes(4).toString('hex')}`,
  );
  try {
    await fs.rename(options.dir, trash);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  await fs.rm(trash, { recursive: true, force: true });
}
