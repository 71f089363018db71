/**
 * The little of Markdown the docs check needs: which lines are inside fenced code, the headings
 * and the anchors GitHub gives them, the links, and the fenced blocks. Pure functions over text;
 * line numbers are 1-based.
 */

export interface Fence {
  /** The info string, e.g. `sh example`. */
  info: string;
  /** Line of the opening fence. */
  line: number;
  /** The lines between the fences. */
  body: string[];
}

export interface Link {
  target: string;
  line: number;
}

interface Line {
  text: string;
  line: number;
}

/** Splits `markdown` into its fenced code blocks and the lines outside them. */
export function splitFences(markdown: string): { prose: Line[]; fences: Fence[] } {
  const prose: Line[] = [];
  const fences: Fence[] = [];
  let open: { marker: string; fence: Fence } | undefined;
  markdown.split('\n').forEach((text, i) => {
    const line = i + 1;
    if (open) {
      const closing = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(text);
      if (closing && closing[1]![0] === open.marker[0] && closing[1]!.length >= open.marker.length) {
        fences.push(open.fence);
        open = undefined;
      } else open.fence.body.push(text);
      return;
    }
    const opening = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(text);
    if (opening && !(opening[1]![0] === '`' && opening[2]!.includes('`'))) {
      open = { marker: opening[1]!, fence: { info: opening[2]!.trim(), line, body: [] } };
    } else prose.push({ text, line });
  });
  if (open) fences.push(open.fence); // unclosed: runs to the end of the document
  return { prose, fences };
}

/** `text` without its inline code spans (for finding links, which code spans do not contain). */
function withoutCodeSpans(text: string): string {
  return text.replace(/(`+)(?:(?!\1)[\s\S])*?\1/g, (span) => ' '.repeat(span.length));
}

/**
 * The slug GitHub gives a heading's text (github-slugger): the rendered text lower-cased, every
 * character but letters, marks, digits, connectors (`_`), `-` and spaces dropped, spaces as `-`.
 */
export function githubSlug(heading: string): string {
  return renderedText(heading)
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** A heading's text as rendered: code spans keep their content; links, images, HTML and emphasis go. */
function renderedText(heading: string): string {
  const parts = heading.split(/(`+[^`]*`+)/);
  return parts
    .map((part, i) =>
      i % 2 === 1
        ? part.replace(/^`+|`+$/g, '')
        : part
            .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
            .replace(/<[^>]+>/g, '')
            .replace(/(^|[^\p{L}\p{N}])_+|_+(?=[^\p{L}\p{N}]|$)/gu, '$1'),
    )
    .join('')
    .trim();
}

/**
 * The anchors a document offers: one per heading (ATX `#` and setext), repeated slugs suffixed
 * `-1`, `-2` as GitHub does, plus explicit `<a id>`/`<a name>` anchors.
 */
export function anchorsOf(markdown: string): Set<string> {
  const { prose } = splitFences(markdown);
  const anchors = new Set<string>();
  const counts = new Map<string, number>();
  const add = (heading: string) => {
    const slug = githubSlug(heading);
    const seen = counts.get(slug) ?? 0;
    counts.set(slug, seen + 1);
    anchors.add(seen === 0 ? slug : `${slug}-${seen}`);
  };
  prose.forEach(({ text }, i) => {
    const atx = /^ {0,3}#{1,6}(?:\s+(.*?))?(?:\s+#+)?\s*$/.exec(text);
    const next = prose[i + 1];
    if (atx) add(atx[1] ?? '');
    else if (
      next &&
      next.line === prose[i]!.line + 1 &&
      /^ {0,3}(=+|-+)\s*$/.test(next.text) &&
      text.trim() !== '' &&
      !/^\s*([-*+]|\d+[.)])\s/.test(text) &&
      !text.includes('|')
    )
      add(text.trim());
    for (const m of text.matchAll(/<a\s[^>]*(?:id|name)=["']([^"']+)["']/gi)) anchors.add(m[1]!);
  });
  return anchors;
}

/**
 * The links of a document outside code: inline `[text](target)` and images, reference
 * definitions `[id]: target`, and `<a href>`/`<img src>`. Targets keep their `#anchor`.
 */
export function linksOf(markdown: string): Link[] {
  const links: Link[] = [];
  for (const { text, line } of splitFences(markdown).prose) {
    const plain = withoutCodeSpans(text);
    for (const m of plain.matchAll(/\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+["'(][^)]*)?\)/g))
      links.push({ target: m[1]!.replace(/^<|>$/g, ''), line });
    const definition = /^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)/.exec(plain);
    if (definition) links.push({ target: definition[1]!.replace(/^<|>$/g, ''), line });
    for (const m of plain.matchAll(/<(?:a|img)\s[^>]*(?:href|src)=["']([^"']+)["']/gi))
      links.push({ target: m[1]!, line });
  }
  return links;
}

/** Whether a link leaves the repository (a scheme such as `https:` or `mailto:`, or `//host`). */
export function isExternal(target: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//');
}
