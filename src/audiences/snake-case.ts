/**
 * The trait key of an audience or computed trait: the snake_case form of its name, as Segment
 * Engage sends it (`"Big Spenders"` → `big_spenders`).
 *
 * - a lower-case letter or digit followed by an upper-case letter starts a new word
 *   (`highValueUsers` → `high_value_users`);
 * - letters of any script and digits are kept, letters lower-cased (`Café Fans` → `café_fans`);
 * - every run of anything else (spaces, punctuation, symbols) becomes one `_`;
 * - no leading or trailing `_`.
 */
export function snakeCase(name: string): string {
  return name
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1_$2')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '_')
    .replace(/^_+|_+$/g, '');
}
