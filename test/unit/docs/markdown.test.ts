import { anchorsOf, githubSlug, isExternal, linksOf, splitFences } from '../../../tools/docs/markdown';

describe('githubSlug: the anchors GitHub gives headings', () => {
  it.each([
    ['Set up', 'set-up'],
    ['Running more than one replica', 'running-more-than-one-replica'],
    ['`HOOKLINE_HTTP_PORT`', 'hookline_http_port'],
    ['POST /api/v1/sources/{id}', 'post-apiv1sourcesid'],
    [
      'Outside the service: CLI, development, tests, bench',
      'outside-the-service-cli-development-tests-bench',
    ],
    ['Ingest under a *burst*', 'ingest-under-a-burst'],
    ['An _emphasised_ word', 'an-emphasised-word'],
    ['snake_case stays', 'snake_case-stays'],
    ['[Linked](other.md) heading', 'linked-heading'],
    ['Audiences & computed traits', 'audiences--computed-traits'],
    ['Ünïcode Größe', 'ünïcode-größe'],
    ['Version 1.2 (beta)', 'version-12-beta'],
    ['  spaced  ', 'spaced'],
  ])('%s → %s', (heading, slug) => {
    expect(githubSlug(heading)).toBe(slug);
  });
});

describe('anchorsOf', () => {
  it('numbers repeated headings, reads setext headings and explicit anchors, skips code', () => {
    const md = [
      '# Title',
      '## Usage',
      '## Usage',
      'Setext heading',
      '--------------',
      '<a id="custom-anchor"></a>',
      '```sh',
      '# not a heading',
      '```',
      '## Usage',
    ].join('\n');
    expect([...anchorsOf(md)].sort()).toEqual(
      ['custom-anchor', 'setext-heading', 'title', 'usage', 'usage-1', 'usage-2'].sort(),
    );
  });

  it('does not take a list item or a table above a rule for a setext heading', () => {
    expect([...anchorsOf('- item\n---\n\n| a |\n---\n')]).toEqual([]);
  });
});

describe('linksOf', () => {
  it.each([
    ['inline', 'See [the docs](docs/a.md).', ['docs/a.md']],
    ['with anchor and title', '[x](a.md#part "Title")', ['a.md#part']],
    ['angle brackets', '[x](<docs/a b.md>)', ['docs/a b.md']],
    ['image inside a link', '[![badge](img/b.svg)](docs/c.md)', ['img/b.svg', 'docs/c.md']],
    ['reference definition', '[ref]: ./docs/d.md', ['./docs/d.md']],
    ['html', '<a href="docs/e.md">e</a> <img src="plot.png">', ['docs/e.md', 'plot.png']],
    ['in a code span: none', 'run `[x](not-a-link.md)`', []],
    ['two on a line', '[a](a.md) and [b](#b)', ['a.md', '#b']],
  ])('%s', (_name, markdown, targets) => {
    expect(linksOf(markdown).map((l) => l.target)).toEqual(targets);
  });

  it('gives line numbers and skips fenced code', () => {
    const md = 'first\n\n```md\n[x](inside.md)\n```\n\n[y](outside.md)';
    expect(linksOf(md)).toEqual([{ target: 'outside.md', line: 7 }]);
  });
});

describe('splitFences', () => {
  it('keeps info strings, bodies and lines; a longer fence holds a shorter one', () => {
    const md = ['text', '````md', '```sh', 'inner', '```', '````', '~~~sh example', 'npm x', '~~~'].join(
      '\n',
    );
    const { prose, fences } = splitFences(md);
    expect(prose).toEqual([{ text: 'text', line: 1 }]);
    expect(fences).toEqual([
      { info: 'md', line: 2, body: ['```sh', 'inner', '```'] },
      { info: 'sh example', line: 7, body: ['npm x'] },
    ]);
  });
});

describe('isExternal', () => {
  it.each([
    ['https://example.com', true],
    ['mailto:a@b.c', true],
    ['//cdn.example.com/x', true],
    ['docs/a.md', false],
    ['#anchor', false],
    ['../README.md', false],
  ])('%s → %s', (target, external) => {
    expect(isExternal(target)).toBe(external);
  });
});
