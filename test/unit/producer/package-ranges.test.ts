import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * @hookline/producer is built from the service's own sources (packages/producer), so each package
 * it declares must be the one the service is tested with: the same range in both package.json
 * files. kafkajs above all: the service pins the release its fork was made for.
 */
type Manifest = Record<
  'dependencies' | 'optionalDependencies' | 'devDependencies',
  Record<string, string> | undefined
>;

const read = (file: string): Manifest =>
  JSON.parse(readFileSync(path.join(__dirname, '../../..', file), 'utf8')) as Manifest;

const root = read('package.json');
const library = read('packages/producer/package.json');
const rootRanges: Record<string, string> = {
  ...root.devDependencies,
  ...root.optionalDependencies,
  ...root.dependencies,
};
const libraryRanges = Object.entries({ ...library.dependencies, ...library.optionalDependencies });

describe('@hookline/producer dependency ranges', () => {
  it('declares at least kafkajs', () => {
    expect(libraryRanges.map(([name]) => name)).toContain('kafkajs');
  });

  it.each(libraryRanges)('%s has the range the service declares', (name, range) => {
    expect({ name, range }).toEqual({ name, range: rootRanges[name] });
  });
});
