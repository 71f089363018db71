import { createHash } from 'node:crypto';
import { createReadStream, promises as fs } from 'node:fs';
import path from 'node:path';

export const MANIFEST_FILE = 'manifest.json';

/** sha256 and size of every file of a downloaded distribution, relative paths as keys. */
export interface Manifest {
  version: 1;
  createdAt: string;
  files: Record<string, { sha256: string; bytes: number }>;
}

export type ManifestCheck = { ok: true } | { ok: false; reason: string };

/** Hashes every file under `dir` and writes `dir/manifest.json`. */
export async function writeManifest(options: { dir: string }): Promise<Manifest> {
  const files: Manifest['files'] = {};
  const paths = await listFiles(options.dir);
  await forEachLimited({
    items: paths,
    concurrency: 8,
    run: async (relative) => {
      files[relative] = await hashFile(path.join(options.dir, relative));
    },
  });
  const sorted = Object.fromEntries(Object.entries(files).sort(([a], [b]) => a.localeCompare(b)));
  const manifest: Manifest = { version: 1, createdAt: new Date().toISOString(), files: sorted };
  await fs.writeFile(path.join(options.dir, MANIFEST_FILE), JSON.stringify(manifest, null, 1));
  return manifest;
}

/**
 * Checks `dir` against its manifest: the same set of files (an extra jar would change the
 * classpath), the same sizes, the same sha256.
 */
export async function verifyManifest(options: { dir: string }): Promise<ManifestCheck> {
  let manifest: Manifest;
  try {
    manifest = JSON.parse(await fs.readFile(path.join(options.dir, MANIFEST_FILE), 'utf8')) as Manifest;
  } catch (err) {
    const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
    return { ok: false, reason: missing ? 'not downloaded' : 'unreadable manifest' };
  }
  if (manifest.version !== 1 || typeof manifest.files !== 'object')
    return { ok: false, reason: 'unknown manifest' };
  const actual = await listFiles(options.dir);
  const expected = Object.keys(manifest.files);
  const extra = actual.filter((f) => !(f in manifest.files));
  const actualSet = new Set(actual);
  const missing = expected.filter((f) => !actualSet.has(f));
  if (extra.length > 0 || missing.length > 0) {
    return {
      ok: false,
      reason: `file set differs (extra: ${extra.slice(0, 3)}, missing: ${missing.slice(0, 3)})`,
    };
  }
  const mismatches: string[] = [];
  await forEachLimited({
    items: expected,
    concurrency: 8,
    run: async (relative) => {
      const want = manifest.files[relative];
      const stat = await fs.stat(path.join(options.dir, relative));
      if (stat.size !== want.bytes) {
        mismatches.push(relative);
        return;
      }
      const got = await hashFile(path.join(options.dir, relative));
      if (got.sha256 !== want.sha256) mismatches.push(relative);
    },
  });
  if (mismatches.length > 0)
    return { ok: false, reason: `checksum mismatch: ${mismatches.slice(0, 3).join(', ')}` };
  return { ok: true };
}

async function hashFile(file: string): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(file)) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { sha256: hash.digest('hex'), bytes };
}

/** Relative paths (with `/`) of every regular file under `dir`, except the manifest. */
async function listFiles(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .filter((relative) => relative !== MANIFEST_FILE)
    .sort();
}

async function forEachLimited<T>(options: {
  items: readonly T[];
  concurrency: number;
  run: (item: T) => Promise<void>;
}): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < options.items.length) await options.run(options.items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency, options.items.length) }, worker));
}
