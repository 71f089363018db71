/**
 * The tokens of JSON text that the one-pass scans step over (json-scan.ts): strings, numbers, and
 * whether a number prints back as its own text from a JavaScript number (JSON.parse then loses
 * nothing).
 */
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * True when every number token outside strings prints back as the same text from a JavaScript
 * number, so JSON.parse loses nothing: what `scanJson(text).exact` says, without looking for anything else.
 */
export function numbersAreExact(text: string): boolean {
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (end === -1) return true; // unterminated: invalid JSON, left to the parsers
      i = end;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      const end = exactNumberEnd(text, i);
      if (end === -1) return false;
      i = end - 1;
    }
  }
  return true;
}

/** The index of the quote closing the string that opens at `start`; -1 when there is none. */
export function stringEnd(text: string, start: number): number {
  // To the next quote that no backslash escapes (indexOf is native).
  let end = text.indexOf('"', start + 1);
  while (end !== -1 && escaped(text, end)) end = text.indexOf('"', end + 1);
  return end;
}

/**
 * The end of the number token at `start` when it prints back as its text from a JavaScript
 * number; -1 when it does not.
 */
export function exactNumberEnd(text: string, start: number): number {
  const length = text.length;
  const c = text.charCodeAt(start);
  let end = start + 1;
  let digitsOnly = c !== 0x2d && c !== 0x30;
  while (end < length) {
    const n = text.charCodeAt(end);
    if (n >= 0x30 && n <= 0x39) end++;
    // '.', 'e', 'E', '+', '-'
    else if (n === 0x2e || n === 0x65 || n === 0x45 || n === 0x2b || n === 0x2d) {
      digitsOnly = false;
      end++;
    } else break;
  }
  // An integer of at most 15 digits without a leading zero prints back as it is.
  if (digitsOnly && end - start <= 15) return end;
  const token = text.slice(start, end);
  return String(Number(token)) === token ? end : -1;
}

/** The end of the number token at `start`, whatever it holds. */
export function numberEnd(text: string, start: number): number {
  const length = text.length;
  let end = start + 1;
  while (end < length) {
    const n = text.charCodeAt(end);
    // digits, '.', 'e', 'E', '+', '-'
    if ((n >= 0x30 && n <= 0x39) || n === 0x2e || n === 0x65 || n === 0x45 || n === 0x2b || n === 0x2d) end++;
    else break;
  }
  return end;
}

/** True when the character at `at` follows an odd number of backslashes. */
export function escaped(text: string, at: number): boolean {
  let backslashes = 0;
  for (let j = at - 1; j >= 0 && text.charCodeAt(j) === BACKSLASH; j--) backslashes++;
  return backslashes % 2 === 1;
}
