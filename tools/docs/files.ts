import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** The Markdown files the docs check reads: README.md, docs/**, bench/README.md, packages/*\/README.md. */
export function docFiles(root: string): string[] {
  const files = ['README.md', 'bench/README.md'].filter((f) => existsSync(path.join(root, f)));
  const walk = (dir: string): string[] =>
    existsSync(path.join(root, dir))
      ? readdirSync(path.join(root, dir)).flatMap((name) => {
          const rel = `${dir}/${name}`;
          if (statSync(path.join(root, rel)).isDirectory()) return walk(rel);
          return name.endsWith('.md') ? [rel] : [];
        })
      : [];
  const packages = existsSync(path.join(root, 'packages'))
    ? readdirSync(path.join(root, 'packages'))
        .map((p) => `packages/${p}/README.md`)
        .filter((f) => existsSync(path.join(root, f)))
    : [];
  return [...files, ...walk('docs').sort(), ...packages];
}
