import type { Fence } from './markdown';

/**
 * The commands of the docs' shell blocks (shell-blocks.ts says which blocks run), and which npm
 * script each names, so that the static check can make sure package.json has it.
 */

export interface ShellCommand {
  text: string;
  line: number;
}

/** What a command names: an npm script (checked to exist), npm itself, or anything else. */
export type CommandCheck =
  { kind: 'npm-script'; script: string } | { kind: 'npm-builtin' } | { kind: 'other' };

/**
 * The commands of a shell fence: a command goes on while a line ends with `\` or a quote is
 * open; comments and blank lines are dropped, and `a && b` split in two.
 */
export function shellCommands(fence: Fence): ShellCommand[] {
  const commands: ShellCommand[] = [];
  let pending: (ShellCommand & { quote: string | undefined }) | undefined;
  fence.body.forEach((raw, i) => {
    const text = raw.trim();
    if (!pending) {
      if (text === '' || text.startsWith('#')) return;
      pending = { text: '', line: fence.line + 1 + i, quote: undefined };
    }
    pending.quote = openQuoteAfter(text, pending.quote);
    const continued = pending.quote === undefined && text.endsWith('\\');
    pending.text += (pending.text ? ' ' : '') + (continued ? text.slice(0, -1).trim() : text);
    if (!continued && pending.quote === undefined) {
      for (const part of pending.text.split(/\s&&\s/))
        commands.push({ text: part.trim(), line: pending.line });
      pending = undefined;
    }
  });
  if (pending) commands.push({ text: pending.text, line: pending.line });
  return commands;
}

/** The quote (`'` or `"`) still open at the end of `text`, given the one open at its start. */
export function openQuoteAfter(text: string, open: string | undefined): string | undefined {
  let quote = open;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote === undefined) {
      if (c === '\\') i++;
      else if (c === "'" || c === '"') quote = c;
      else if (c === '#' && (i === 0 || /\s/.test(text[i - 1]!))) break;
    } else if (c === quote) quote = undefined;
    else if (quote === '"' && c === '\\') i++;
  }
  return quote;
}

/**
 * Which npm script a command names (`npm start`, `npm test`, `npm run x -- args`, also after
 * variables such as `A=1 npm start`); `npm ci`/`npm install` are npm's own.
 */
export function classifyCommand(command: string): CommandCheck {
  const normalised = command.replace(/\s+/g, ' ').trim();
  const words = normalised.replace(/^(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)+/, '').split(' ');
  if (words[0] !== 'npm') return { kind: 'other' };
  const [verb, ...rest] = words.slice(1);
  if (verb === 'ci' || verb === 'install' || verb === 'i') return { kind: 'npm-builtin' };
  if (verb === 'start' || verb === 'test' || verb === 'stop' || verb === 'restart')
    return { kind: 'npm-script', script: verb };
  if (verb === 'run' || verb === 'run-script') {
    const script = rest.find((w) => !w.startsWith('-'));
    if (script) return { kind: 'npm-script', script };
  }
  return { kind: 'other' };
}
