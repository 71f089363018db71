import { isLosslessNumber } from '../events/json';

/**
 * Events keep numbers exactly as the client wrote them (events/json.ts): `100.0`, `1e3` and
 * integers beyond 2^53 reach the processor as LosslessNumbers. The processor compares, sums and
 * stores numbers as JavaScript numbers (doubles): a LosslessNumber becomes the nearest double, so
 * `100.0` is 100 (`gt: 50` matches it, `equals: 100` too) and `1e3` is 1000. Beyond 2^53 two
 * integers that round to the same double compare equal (9007199254740993 `equals`
 * 9007199254740992), and an announced value is that double. A user's state is stored as JSON
 * and in LMDB, where a LosslessNumber would become `{"value": "100.0", "isLosslessNumber": true}`.
 */
export function plainNumber(value: unknown): unknown {
  return isLosslessNumber(value) ? Number(value.value) : value;
}

/**
 * The value with every LosslessNumber in it (at any depth) a plain number; the same object when
 * it holds none, so the common case allocates nothing.
 */
export function withPlainNumbers<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (isLosslessNumber(value)) return Number(value.value) as T;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item: unknown, i) => {
      const plain = withPlainNumbers(item);
      if (plain !== item) (copy ??= [...value])[i] = plain;
    });
    return (copy ?? value) as T;
  }
  let copy: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(value)) {
    const plain = withPlainNumbers(item);
    if (plain !== item) (copy ??= { ...(value as Record<string, unknown>) })[key] = plain;
  }
  return (copy ?? value) as T;
}
