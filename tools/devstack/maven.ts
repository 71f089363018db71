import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Logger } from '../../src/observability/logger';
import { StackError } from './errors';
import { SupervisedProcess } from './process';

const execFileAsync = promisify(execFile);

export interface MavenCoordinate {
  groupId: string;
  artifactId: string;
  version: string;
}

export interface MavenRunOptions {
  /** Scratch folder: the throwaway pom and mvn's log go here. Deleted by the caller. */
  workDir: string;
  logger: Logger;
}

/**
 * Copies `dependencies` and their runtime dependencies into `outputDir`, via a throwaway pom:
 * `mvn -B -q --strict-checksums dependency:copy-dependencies -DincludeScope=runtime`.
 */
export async function copyDependencies(
  options: MavenRunOptions & { dependencies: MavenCoordinate[]; outputDir: string },
): Promise<void> {
  const pom = path.join(options.workDir, 'pom.xml');
  await fs.writeFile(pom, throwawayPom(options.dependencies));
  await runMaven({
    ...options,
    args: [
      '-B',
      '-q',
      '--strict-checksums',
      '-f',
      pom,
      'dependency:copy-dependencies',
      '-DincludeScope=runtime',
      `-DoutputDirectory=${options.outputDir}`,
    ],
  });
}

/** Copies one artifact (`group:artifact:version:type:classifier`) into `outputDir`; `-U` retries a cached failed look-up. */
export async function copyArtifact(
  options: MavenRunOptions & { artifact: string; outputDir: string },
): Promise<void> {
  await runMaven({
    ...options,
    args: [
      '-B',
      '-q',
      '-U',
      '--strict-checksums',
      'dependency:copy',
      `-Dartifact=${options.artifact}`,
      `-DoutputDirectory=${options.outputDir}`,
    ],
  });
}

/** Unpacks a .tar.gz into `outputDir` with the system `tar`. */
export async function untar(options: { archive: string; outputDir: string }): Promise<void> {
  try {
    await execFileAsync('tar', ['-xzf', options.archive, '-C', options.outputDir]);
  } catch (err) {
    throw new StackError(`could not unpack ${options.archive}`, { stage: 'download', cause: err });
  }
}

async function runMaven(options: MavenRunOptions & { args: string[] }): Promise<void> {
  const { workDir, logger, args } = options;
  const logFile = path.join(workDir, 'mvn.log');
  logger.debug({ args }, 'running mvn');
  // mvn is a JVM too: run it supervised so a killed owner does not leave it behind.
  const mvn = SupervisedProcess.spawn({
    spec: { name: 'mvn', command: 'mvn', args, cwd: workDir, logFile, cleanupDir: workDir },
    supervision: { watchParentPid: process.pid, releaseFile: path.join(workDir, 'never-released') },
    logger,
  });
  const exit = await mvn.exited;
  if (exit.code === 0) return;
  const tail = await mvn.logTail({ lines: 30 });
  const notFound = exit.code === 127 || /mvn: (command )?not found/.test(tail);
  throw new StackError(
    notFound
      ? 'mvn was not found on PATH: install Maven 3.6+ (it downloads Kafka and the schema registry from Maven Central)'
      : `mvn ${args.join(' ')} failed (exit ${exit.code ?? exit.signal})`,
    { stage: 'download', logTail: notFound ? undefined : tail, cause: exit.error },
  );
}

function throwawayPom(dependencies: MavenCoordinate[]): string {
  const deps = dependencies
    .map(
      (d) =>
        `    <dependency><groupId>${d.groupId}</groupId><artifactId>${d.artifactId}</artifactId>` +
        `<version>${d.version}</version></dependency>`,
    )
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>dev.hookline.devstack</groupId>
  <artifactId>devstack-download</artifactId>
  <version>0</version>
  <packaging>pom</packaging>
  <dependencies>
${deps}
  </dependencies>
</project>
`;
}
