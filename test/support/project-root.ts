import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * The checkout's root: the nearest directory above this file with a package.json. The same from
 * the sources (tsx, jest) and from the bench's compiled copy (`dist-bench/`, which has none).
 */
export function projectRoot(): string {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${__dirname}`);
  }
}
