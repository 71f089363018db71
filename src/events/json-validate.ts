/**
 * Whether `JSON.parse(text)` would succeed and give an object (not an array, string, number,
 * boolean or null), found without building anything: one pass over the text, no allocation but a
 * stack of the containers open. For text that is passed on as it is (a webhook body carries an
 * event record's free-form objects verbatim) and only needs to be known valid.
 *
 * The grammar is JSON.parse's (ECMA-404): whitespace is space, tab, LF and CR only; strings refuse
 * raw control characters and accept any other code unit, lone surrogates included; escapes are
 * \" \\ \/ \b \f \n \r \t and \u with four hex digits; numbers have no leading zeros, no leading
 * `+`, no bare `.`; duplicate keys are allowed (JSON.parse keeps the last).
 */
export function isJsonObjectText(text: string): boolean {
  const length = text.length;
  let i = skipWhitespace(text, 0);
  if (text.charCodeAt(i) !== OPEN_OBJECT) return false;
  const open: number[] = [];
  for (;;) {
    // A value starts at i.
    const c = text.charCodeAt(i);
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      const close = c === OPEN_OBJECT ? CLOSE_OBJECT : CLOSE_ARRAY;
      i = skipWhitespace(text, i + 1);
      if (text.charCodeAt(i) !== close) {
        open.push(c);
        if (c === OPEN_OBJECT && (i = memberValue(text, i)) < 0) return false;
        continue; // its first value starts at i
      }
      i++; // {} or []
    } else if (c === QUOTE) {
      if ((i = stringEnd(text, i)) < 0) return false;
    } else if (c === MINUS || isDigit(c)) {
      if ((i = numberEnd(text, i)) < 0) return false;
    } else if (c === 0x74 /* t */ && text.startsWith('true', i)) i += 4;
    else if (c === 0x66 /* f */ && text.startsWith('false', i)) i += 5;
    else if (c === 0x6e /* n */ && text.startsWith('null', i)) i += 4;
    else return false;

    // A value ended at i: what follows is a comma, the end of containers, or the end of the text.
    for (;;) {
      i = skipWhitespace(text, i);
      if (open.length === 0) return i === length;
      const container = open[open.length - 1];
      const next = text.charCodeAt(i);
      if (next === COMMA) {
        i = skipWhitespace(text, i + 1);
        if (container === OPEN_OBJECT && (i = memberValue(text, i)) < 0) return false;
        break; // the next value starts at i
      }
      if (next !== (container === OPEN_OBJECT ? CLOSE_OBJECT : CLOSE_ARRAY)) return false;
      open.pop();
      i++;
    }
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isHex = (c: number) => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);

function skipWhitespace(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return i;
    i++;
  }
}

/** From a member's key at i (`"key" : `), the start of its value; -1 if there is no such key. */
function memberValue(text: string, i: number): number {
  if (text.charCodeAt(i) !== QUOTE || (i = stringEnd(text, i)) < 0) return -1;
  i = skipWhitespace(text, i);
  return text.charCodeAt(i) === COLON ? skipWhitespace(text, i + 1) : -1;
}

/** From the opening quote at i, the index after the closing one; -1 if the string is invalid. */
function stringEnd(text: string, i: number): number {
  const length = text.length;
  for (let j = i + 1; j < length; j++) {
    const c = text.charCodeAt(j);
    if (c === QUOTE) return j + 1;
    if (c < 0x20) return -1;
    if (c === BACKSLASH) {
      const e = text.charCodeAt(++j);
      if (e === 0x75 /* u */) {
        for (let k = 1; k <= 4; k++) if (!isHex(text.charCodeAt(j + k))) return -1;
        j += 4;
      } else if (!ESCAPES.has(e)) return -1;
    }
  }
  return -1;
}

/** " \ / b f n r t: what may follow a backslash, besides u. */
const ESCAPES = new Set([QUOTE, BACKSLASH, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]);

/** From a number's first character at i, the index after it; -1 if it is not a JSON number. */
function numberEnd(text: string, i: number): number {
  if (text.charCodeAt(i) === MINUS) i++;
  const first = text.charCodeAt(i);
  if (first === 0x30) i++;
  else if (first > 0x30 && first <= 0x39) while (isDigit(text.charCodeAt(++i)));
  else return -1;
  if (text.charCodeAt(i) === DOT) {
    if (!isDigit(text.charCodeAt(++i))) return -1;
    while (isDigit(text.charCodeAt(++i)));
  }
  const e = text.charCodeAt(i);
  if (e === 0x65 || e === 0x45 /* e E */) {
    const sign = text.charCodeAt(++i);
    if (sign === PLUS || sign === MINUS) i++;
    if (!isDigit(text.charCodeAt(i))) return -1;
    while (isDigit(text.charCodeAt(++i)));
  }
  return i;
}
