/**
 * The trait key of an audience or computed trait: the snake_case form of its name, as Segment
 * Engage sends it (`"Big Spenders"` → `big_spenders`).
 *
 * - the name is normalised to NFC first, so the composed and decomposed spellings of a name
 *   (`Café` typed as é or as e + U+0301) give one key, and its 409 when taken;
 * - a lower-case letter or digit followed by an upper-case letter starts a new word
 *   (`highValueUsers` → `high_value_users`);
 * - letters of any script and digits are kept, letters lower-cased (`Café Fans` → `café_fans`),
 *   with the combining marks that belong to them (vowel signs, viramas, accents with no
 *   precomposed form: `हिन्दी users` → `हिन्दी_users`); a mark with no letter or digit before it
 *   is dropped;
 * - every run of anything else (spaces, punctuation, symbols) becomes one `_`;
 * - no leading or trailing `_`.
 *
 * The key is derived once, when the definition is created, and stored with it: changing this
 * function never changes the key of an existing audience or computed trait.
 */
export function snakeCase(name: string): string {
  return name
    .normalize('NFC')
    .replace(/([\p{Ll}\p{N}]\p{M}*)(\p{Lu})/gu, '$1_$2')
    .toLowerCase()
    .normalize('NFC')
    .replace(/[^\p{L}\p{M}\p{N}]+/gu, '_')
    .replace(/(^|_)\p{M}+/gu, '$1')
    .replace(/^_+|_+$/g, '');
}
