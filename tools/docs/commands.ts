import type { Fence } from './markdown';

/**
 * README commands. A fenced block whose info string is a shell (`sh`, `bash`, `shell`, `console`)
 * holds commands a reader may paste; one whose info string adds the word `example` (```sh example)
 * is for reading only (it needs a running Hookline, your own ids, …) and is not checked.
 */

export interface ShellCommand {
  text: string;
  line: number;
}

/** What the docs check does with a README command. */
export type CommandCheck =
  { kind: 'run' } | { kind: 'npm-script'; script: string } | { kind: 'npm-builtin' } | { kind: 'unchecked' };

const SHELLS = new Set(['sh', 'bash', 'shell', 'zsh', 'console']);

/** Whether a fence holds shell commands, and whether it is marked as an example. */
export function fenceKind(info: string): 'commands' | 'example' | 'other' {
  const [language, ...words] = info.split(/\s+/);
  if (!SHELLS.has((language ?? '').toLowerCase())) return 'other';
  return words.includes('example') ? 'example' : 'commands';
}

/**
 * The commands of a shell fence: a command goes on while a line ends with `\` or a quote is
 * open; comments and blank lines are dropped, a `$ ` prompt removed (in `console` blocks only
 * prompted lines are commands), and `a && b` split in two.
 */
export function shellCommands(fence: Fence): ShellCommand[] {
  const prompted = fence.info.split(/\s+/)[0] === 'console';
  const commands: ShellCommand[] = [];
  let pending: (ShellCommand & { quote: string | undefined }) | undefined;
  fence.body.forEach((raw, i) => {
    let text = raw.trim();
    if (!pending) {
      if (prompted) {
        if (!text.startsWith('$ ')) return;
        text = text.slice(2).trim();
      }
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
 * How a command is checked: run when it is in `runnable` (quick, side-effect free); an npm
 * script (`npm start`, `npm test`, `npm run x -- args`, variables set before it) is checked to
 * exist; `npm ci`/`npm install` need no check; anything else cannot be checked.
 */
export function classifyCommand(command: string, runnable: readonly string[]): CommandCheck {
  const normalised = command.replace(/\s+/g, ' ').trim();
  if (runnable.includes(normalised)) return { kind: 'run' };
  const words = normalised.replace(/^(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)+/, '').split(' ');
  if (words[0] !== 'npm') return { kind: 'unchecked' };
  const [verb, ...rest] = words.slice(1);
  if (verb === 'ci' || verb === 'install' || verb === 'i') return { kind: 'npm-builtin' };
  if (verb === 'start' || verb === 'test' || verb === 'stop' || verb === 'restart')
    return { kind: 'npm-script', script: verb };
  if (verb === 'run' || verb === 'run-script') {
    const script = rest.find((w) => !w.startsWith('-'));
    if (script) return { kind: 'npm-script', script };
  }
  return { kind: 'unchecked' };
}
