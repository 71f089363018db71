import { readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

type Version = [number, number, number];

/** `24.22.3` → [24, 22, 3]; a missing or wildcard part is 0. */
function parse(text: string): Version {
  const match = /^v?(\d+)(?:\.(\d+|x|\*))?(?:\.(\d+|x|\*))?$/.exec(text.trim());
  if (!match) throw new Error(`not a version: ${text}`);
  const part = (p: string | undefined) => (p === undefined || p === 'x' || p === '*' ? 0 : Number(p));
  return [Number(match[1]), part(match[2]), part(match[3])];
}

function compare(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/**
 * Whether `version` satisfies an `engines.node` range, for the forms the lockfile holds: `*`,
 * `>=a.b.c`, `^a.b.c`, a bare `a` / `a.x`, comparators joined by spaces (and) or `||` (or). Any
 * other form throws, so that a dependency with a new kind of range is looked at, not skipped.
 */
function satisfies(version: Version, range: string): boolean {
  return range.split('||').some((alternative) =>
    alternative
      .trim()
      .replace(/(>=|\^)\s+/g, '$1')
      .split(/\s+/)
      .every((comparator) => {
        if (comparator === '*' || comparator === '') return true;
        if (comparator.startsWith('>=')) return compare(version, parse(comparator.slice(2))) >= 0;
        if (comparator.startsWith('^')) {
          const low = parse(comparator.slice(1));
          return version[0] === low[0] && compare(version, low) >= 0;
        }
        if (/^\d+(\.(x|\*))?$/.test(comparator)) return version[0] === parse(comparator)[0];
        throw new Error(`unsupported engines range: ${range}`);
      }),
  );
}

/** tools/ci/node-versions: the exact Node builds CI runs on, by major. */
function pinned(): Map<number, string> {
  const rows = read('tools/ci/node-versions')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'))
    .map((line) => line.trim().split(/\s+/));
  const byMajor = new Map<number, string>();
  for (const [version, integrity] of rows) {
    expect(integrity).toMatch(/^sha512-[A-Za-z0-9+/]{86}==$/);
    const major = parse(version!)[0];
    expect(byMajor.has(major)).toBe(false);
    byMajor.set(major, version!);
  }
  return byMajor;
}

const pkg = JSON.parse(read('package.json')) as {
  engines: { node: string };
  devDependencies: Record<string, string>;
};
const minimum = parse(/^>=\s*(\S+)$/.exec(pkg.engines.node)?.[1] ?? 'not a lower bound');

/**
 * One runtime everywhere (Node 24): .nvmrc, .node-version, the image, CI's first Node, the types;
 * and `engines` a lower bound that the oldest Node CI tests on meets, as does every production
 * dependency.
 */
describe('the Node.js runtime', () => {
  const runtime = Number(read('.nvmrc').trim());

  it('is one major: .nvmrc, .node-version, the image, @types/node and CI', () => {
    expect(runtime).toBe(24);
    expect(read('.node-version').trim()).toBe(String(runtime));
    expect(read('Dockerfile')).toMatch(new RegExp(`^ARG NODE_IMAGE=node:${runtime}-bookworm-slim$`, 'm'));
    expect(pkg.devDependencies['@types/node']).toMatch(new RegExp(`^\\^${runtime}\\.`));
    expect(read('.ci/run')).toMatch(new RegExp(`tools/ci/node\\.sh ${runtime}\\)`));
    expect(pinned().has(runtime)).toBe(true);
  });

  it('has an engines minimum that every Node CI tests on meets', () => {
    for (const version of pinned().values()) expect(satisfies(parse(version), pkg.engines.node)).toBe(true);
    expect(Math.min(...pinned().keys())).toBe(minimum[0]);
  });

  it('has an engines minimum that every production dependency accepts', () => {
    const lock = JSON.parse(read('package-lock.json')) as {
      packages: Record<string, { dev?: boolean; engines?: { node?: string } }>;
    };
    const refusing = Object.entries(lock.packages)
      .filter(([name, entry]) => name !== '' && !entry.dev && entry.engines?.node !== undefined)
      .filter(([, entry]) => !satisfies(minimum, entry.engines!.node!))
      .map(([name, entry]) => `${name} (${entry.engines!.node})`);
    expect(refusing).toEqual([]);
  });

  it('reads engines ranges as npm does', () => {
    expect(satisfies([22, 12, 0], '>=20.18.1')).toBe(true);
    expect(satisfies([22, 12, 0], '>=22.19.0')).toBe(false);
    expect(satisfies([22, 22, 0], '>= 22.22.0 || >= 24.6.0')).toBe(true);
    expect(satisfies([22, 12, 0], '^16 || ^18 || >=20')).toBe(true);
    expect(satisfies([22, 12, 0], '^16 || ^18')).toBe(false);
    expect(satisfies([22, 12, 0], '>=16 || 14 >=14.17')).toBe(true);
    expect(satisfies([14, 16, 0], '>=16 || 14 >=14.17')).toBe(false);
    expect(satisfies([22, 12, 0], '>= 10.x')).toBe(true);
    expect(() => satisfies([22, 12, 0], '~22.1')).toThrow('unsupported');
  });
});
