import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { anchorsOf, isExternal, linksOf } from './markdown';
import type { Problem } from './problems';

/**
 * Every relative link of `files` resolves: the file or directory exists, and an `#anchor` into a
 * Markdown file is one of its headings (GitHub's slugs). External links are not fetched.
 */
export function checkLinks(root: string, files: readonly string[]): Problem[] {
  const anchorCache = new Map<string, Set<string>>();
  const anchors = (file: string) => {
    let found = anchorCache.get(file);
    if (!found) anchorCache.set(file, (found = anchorsOf(readFileSync(path.join(root, file), 'utf8'))));
    return found;
  };
  const problems: Problem[] = [];
  for (const file of files) {
    for (const { target, line } of linksOf(readFileSync(path.join(root, file), 'utf8'))) {
      if (isExternal(target)) continue;
      const hash = target.indexOf('#');
      const pathPart = decodeURIComponent((hash < 0 ? target : target.slice(0, hash)).replace(/\?.*$/, ''));
      const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
      const resolved =
        pathPart === ''
          ? file
          : pathPart.startsWith('/')
            ? pathPart.slice(1)
            : path.posix.normalize(path.posix.join(path.posix.dirname(file), pathPart));
      if (resolved.startsWith('..') || !existsSync(path.join(root, resolved))) {
        problems.push({ file, line, message: `link to ${target}: ${resolved} does not exist` });
        continue;
      }
      const isMarkdown = resolved.endsWith('.md') && statSync(path.join(root, resolved)).isFile();
      if (anchor !== undefined && anchor !== '' && isMarkdown && !anchors(resolved).has(anchor))
        problems.push({
          file,
          line,
          message: `link to ${target}: ${resolved} has no heading with anchor #${anchor}`,
        });
    }
  }
  return problems;
}
