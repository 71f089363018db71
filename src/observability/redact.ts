/**
 * Redaction of logged objects: a value under a secret's key, at the top of a logged object or
 * up to two levels inside it (`destination.settings.sharedSecret`, `request.headers.authorization`),
 * is printed as `[redacted]`.
 *
 * The logger calls this on every line's object and on every child logger's bindings, so it is
 * written for the common case, a line with nothing to redact: one pass over the keys, no copy and
 * no allocation. An object holding a secret is copied along the path to it (the caller's objects
 * are never changed). pino's own `redact` option did the same with wildcard paths at 7–8% of the
 * whole end-to-end profile when every delivery logged a line: it ran its redactor once per value
 * of every line.
 */

/** Keys whose values are secrets wherever they appear (compared exactly, as the code names them). */
export const SECRET_KEYS: ReadonlySet<string> = new Set([
  'sharedSecret',
  'standardWebhooksSecret',
  // { secret, rotatedAt }: the secret a rotation replaced.
  'standardWebhooksPrevious',
  'secret',
  'secretsKey',
  'writeKey',
  'adminToken',
  'password',
  'authorization',
  // As HTTP headers arrive from some clients and as people write them.
  'Authorization',
]);

export const REDACTED = '[redacted]';

/** Levels of keys looked at: the object's own (0), its values' (1) and theirs (2). */
const DEPTHS = 3;

/** `value` itself when it holds no secret; otherwise a copy with each secret replaced. */
export function redactSecrets<T extends object>(value: T): T {
  return (redactedCopy(value, 0) ?? value) as T;
}

/** A copy of `value` with its secrets replaced, or undefined when it holds none. */
function redactedCopy(value: object, depth: number): object | undefined {
  let copy: Record<string, unknown> | undefined;
  for (const key in value) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
    const inner = (value as Record<string, unknown>)[key];
    let replacement: unknown;
    if (SECRET_KEYS.has(key)) {
      if (inner === undefined) continue; // not printed anyway
      replacement = REDACTED;
    } else if (depth + 1 < DEPTHS && typeof inner === 'object' && inner !== null && descends(inner)) {
      replacement = redactedCopy(inner, depth + 1);
      if (replacement === undefined) continue;
    } else continue;
    copy ??= copyOf(value);
    copy[key] = replacement;
  }
  return copy;
}

/** Objects whose keys JSON prints: not binary data or dates (their keys are never secrets). */
function descends(value: object): boolean {
  return !ArrayBuffer.isView(value) && !(value instanceof Date) && !(value instanceof ArrayBuffer);
}

/**
 * A plain copy of what JSON prints of `value`: its own enumerable keys. An array stays an array;
 * an Error keeps its type, message and stack (not enumerable, so not in a spread).
 */
function copyOf(value: object): Record<string, unknown> {
  if (Array.isArray(value)) return [...value] as unknown as Record<string, unknown>;
  if (value instanceof Error)
    return { type: value.name, message: value.message, stack: value.stack, ...(value as object) };
  return { ...value };
}

/**
 * A URL as logs, banners and the admin API show it: a password in it (`https://user:pass@host`,
 * a registry URL or a webhook URL written before the admin API refused credentials in URLs)
 * reads as `[redacted]`. Text that is not a URL is returned as it is.
 */
export function urlWithoutPassword(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  if (parsed.password === '') return url;
  const { protocol, username, host, pathname, search, hash } = parsed;
  return `${protocol}//${username}:${REDACTED}@${host}${pathname}${search}${hash}`;
}
