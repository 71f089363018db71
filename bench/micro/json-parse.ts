/**
 * Micro-benchmark of reading a tracking body (issue 41, §3): integers beyond 2^53 kept exact.
 * Bodies: a `POST /v1/batch` of 100 calls in a real client's mix (identify with nested traits and
 * lists, track, page, screen, group; Unicode names and event names; escapes), with
 *  - `odd int64s`: 5 of the 100 calls carry an int64 beyond 2^53 (an account id in the traits);
 *  - `int64 in every call`: all 100 do (the worst case for reading elements apart);
 *  - `no big numbers`: none (every path is JSON.parse after the scan).
 * Ways to read them, each giving the same value (checked before timing):
 *  - `lossless whole`: the scan, then JSON.parse when every number is exact, else lossless-json on
 *    the whole body (Hookline before this bench);
 *  - `reviver whole`: JSON.parse with a reviver that keeps each inexact number's source text
 *    (`context.source`, V8's JSON.parse source text access, Node 22+), no scan;
 *  - `scan + reviver`: the scan, then JSON.parse alone when exact, else the reviver;
 *  - `elements apart`: `parseJsonText` as it is: the scan, JSON.parse for all but the elements
 *    holding an inexact number, lossless-json for those;
 * and, for reference, the scan alone and JSON.parse alone (which loses the int64s' digits).
 * Rounds interleaved (each way in turn, per round), best and median of the rounds, in µs per body.
 *
 *   npx tsx bench/micro/json-parse.ts [bodies per round, default 300] [rounds, default 9]
 */
import { LosslessNumber, parse, type ParseOptions } from 'lossless-json';
import { isLosslessNumber, parseJsonText, stringifyJson } from '../../src/events/json';
import { scanJson } from '../../src/events/json-scan';

const perRound = Number(process.argv[2] ?? 300);
const rounds = Number(process.argv[3] ?? 9);

const NAMES = ['Zoë Ångström', '王小明', 'Ольга Петрова', 'José Núñez', 'Amélie "Mimi" Dupont', 'Chen 😀'];
const EVENTS = ['Order Completed', 'Produkt angesehen', 'カートに追加', 'Signed Up', 'Ärger gemeldet'];

/** Call `i` of a body; `int64` puts an account id beyond 2^53 in it. */
function call(i: number, int64: boolean): Record<string, unknown> {
  const user = i % 7 === 0 ? {} : { userId: `user-${(i * 31) % 97}` };
  const base = {
    ...user,
    anonymousId: `anon-${(i * 17) % 251}-4f1c-9b7e-${i}`,
    messageId: `ajs-next-${i}-1f9e6c9a-2b1d-4c55-8e55-${(1e11 + i).toString(16)}`,
    timestamp: `2026-11-29T10:${String(i % 60).padStart(2, '0')}:07.412Z`,
    context: {
      library: { name: 'analytics-go', version: '3.3.0' },
      ip: '203.0.113.7',
      locale: ['fr-FR', 'de-DE', 'ja-JP'][i % 3],
      traits: { plan: 'pro', seats: 12 },
    },
    integrations: { All: true, Mixpanel: false },
  };
  const name = NAMES[i % NAMES.length];
  const account = int64 ? { accountId: 'INT64' } : {};
  switch (i % 5) {
    case 0:
      return {
        ...base,
        type: 'identify',
        traits: {
          name,
          email: `user${i}@example.com`,
          age: 20 + (i % 50),
          address: { city: 'Zürich', street: 'Bahnhofstraße 1', geo: [47.3769, 8.5417] },
          tags: ['beta', 'vip', 'ç'],
          score: 12.75,
          company: { name: 'ACME 株式会社', employees: 1200, plan: { tier: 'gold', since: '2024-01-01' } },
          ...account,
        },
      };
    case 1:
      return {
        ...base,
        type: 'track',
        event: EVENTS[i % EVENTS.length],
        properties: {
          revenue: 39.95,
          currency: 'EUR',
          products: [
            { sku: 'SKU-1001', name: 'Wasserkocher', price: 19.95, quantity: 1 },
            { sku: 'SKU-2002', name: 'Tasse «Ölberg»', price: 10, quantity: 2 },
          ],
          note: 'line\nbreak "quoted" \\ slash',
          ...account,
        },
      };
    case 2:
      return {
        ...base,
        type: 'page',
        name: 'Startseite',
        properties: { url: 'https://example.com/ü?q=1', path: '/', ...account },
      };
    case 3:
      return { ...base, type: 'screen', name: '設定', properties: { width: 1170, height: 2532, ...account } };
    default:
      return {
        ...base,
        type: 'group',
        groupId: `grp-${i % 9}`,
        traits: { name: 'ACME 株式会社', employees: 1200, ...account },
      };
  }
}

/** A body of 100 calls, those with `i % every === 0` carrying an int64 (none when every is 0). */
function body(every: number): string {
  const batch = Array.from({ length: 100 }, (_, i) => call(i, every > 0 && i % every === 0));
  let n = 0;
  const text = JSON.stringify({ batch, sentAt: '2026-11-29T10:59:59.999Z' });
  // Odd integers from 2^53 + 1 upward (not doubles), and -2^63 for every fourth one.
  return text.replaceAll('"INT64"', () =>
    n++ % 4 === 3 ? '-9223372036854775808' : String(2n ** 53n + BigInt(1 + 7918 * n)),
  );
}

const LOSSLESS: ParseOptions = {
  parseNumber: (text) => (String(Number(text)) === text ? Number(text) : new LosslessNumber(text)),
  onDuplicateKey: ({ newValue }) => newValue,
};
const reviver = (_key: string, value: unknown, context?: { source?: string }): unknown => {
  if (typeof value !== 'number') return value;
  const source = context!.source!;
  // An integer of at most 15 characters prints back as it is; otherwise, compare.
  if ((source.length <= 15 && Number.isSafeInteger(value) && source !== '-0') || String(value) === source)
    return value;
  return new LosslessNumber(source);
};
const parseWithReviver = (text: string) =>
  (JSON.parse as (t: string, r: typeof reviver) => unknown)(text, reviver);

const ways: [string, (text: string) => unknown][] = [
  ['lossless whole', (t) => (scanJson(t).exact ? JSON.parse(t) : parse(t, null, LOSSLESS))],
  ['reviver whole', parseWithReviver],
  ['scan + reviver', (t) => (scanJson(t).exact ? JSON.parse(t) : parseWithReviver(t))],
  ['elements apart', (t) => parseJsonText(t, { events: true }).value],
];
/** For reference, not compared: what the scan and JSON.parse cost alone (JSON.parse loses digits). */
const references: [string, (text: string) => unknown][] = [
  ['(scan alone)', scanJson],
  ['(JSON.parse alone)', (t) => JSON.parse(t)],
];
const bodies: [string, string, number][] = [
  ['odd int64s (5 of 100 calls)', body(20), 5],
  ['int64 in every call', body(1), 100],
  ['no big numbers', body(0), 0],
];

/** Every way gives the value the first gives, with `int64s` LosslessNumbers in it. */
function check(text: string, int64s: number): void {
  const expected = stringifyJson(ways[0]![1](text));
  for (const [name, way] of ways) {
    if (stringifyJson(way(text)) !== expected) throw new Error(`${name} reads the body differently`);
  }
  const count = (v: unknown): number =>
    isLosslessNumber(v)
      ? 1
      : typeof v === 'object' && v !== null
        ? Object.values(v).reduce((n: number, x) => n + count(x), 0)
        : 0;
  if (count(ways[3]![1](text)) !== int64s) throw new Error(`expected ${int64s} LosslessNumbers`);
}

let sink = 0;
function round(way: (text: string) => unknown, text: string): number {
  const started = process.hrtime.bigint();
  for (let i = 0; i < perRound; i++) if (way(text)) sink++;
  return Number(process.hrtime.bigint() - started) / perRound / 1_000;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

console.log(
  `${process.version}; µs per body, best / median of ${rounds} interleaved rounds of ${perRound} bodies`,
);
for (const [label, text, int64s] of bodies) {
  check(text, int64s);
  const timed = [...ways, ...references];
  for (const [, way] of timed) round(way, text); // warm-up
  const times = timed.map((): number[] => []);
  for (let r = 0; r < rounds; r++) timed.forEach(([, way], w) => times[w]!.push(round(way, text)));
  const base = median(times[0]!);
  console.log(`${label}: ${text.length} bytes`);
  timed.forEach(([name], w) => {
    const best = Math.min(...times[w]!);
    const mid = median(times[w]!);
    console.log(
      `  ${name.padEnd(16)} ${best.toFixed(0).padStart(6)} / ${mid.toFixed(0).padStart(6)}  ×${(mid / base).toFixed(2)} of lossless whole`,
    );
  });
}
if (sink === 0) console.log('(nothing read)');
