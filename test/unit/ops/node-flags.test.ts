import { readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');

/**
 * The node command of `npm run start:prod` and of the image's CMD: the same V8 flags, one script;
 * and the bench measures Hookline with them.
 */
describe('production node flags', () => {
  it('are the same for `npm run start:prod` and the image', () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    const startProd = pkg.scripts['start:prod']!.split(/\s+/);
    const cmdLine = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8')
      .split('\n')
      .findLast((line) => line.startsWith('CMD ')); // the one that counts
    const image = JSON.parse(cmdLine!.slice('CMD '.length)) as string[];
    expect(image).toEqual(startProd);
    expect(startProd[0]).toBe('node');
    expect(startProd.at(-1)).toBe('dist/src/process/main.js');
  });

  it('are those `npm run bench` runs Hookline in-process with', () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    const flags = (command: string) => command.split(/\s+/).filter((word) => word.startsWith('--'));
    const bench = pkg.scripts['bench']!.split('&&').at(-1)!.trim();
    expect(bench).toMatch(/^node .* dist-bench\/bench\/run\.js$/);
    expect(flags(bench)).toEqual(flags(pkg.scripts['start:prod']!));
    expect(flags(bench).length).toBeGreaterThan(0);
  });
});
