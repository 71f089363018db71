import { adminOpenApiDocument } from '../../tools/docs/admin-routes';
import { startTestApp, type TestApp } from '../support/app';

/**
 * The audiences' admin API on the real cluster: definitions are catalog records, validated at the
 * door (clear 400s), unique by trait key per source (409), and seen by a second process.
 */
type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

let app: TestApp;

/** A view without its progress (state, members), which the processor changes meanwhile. */
const definition = ({ state: _state, members: _members, ...rest }: Json) => rest;
let sourceId: string;

beforeAll(async () => {
  app = await startTestApp();
  sourceId = ((await app.admin<Json>('POST', '/api/v1/sources', { name: 'shop' })).body as Json).id;
});

afterAll(() => app.stop());

describe('audiences admin API', () => {
  it('creates, lists, reads and deletes a rule audience; the key is the snake_case name', async () => {
    const rule = { event: { name: 'Order Completed', atLeast: 2, withinDays: 30 } };
    const created = await app.admin<Json>('POST', '/api/v1/audiences', {
      sourceId,
      name: 'Big Spenders',
      rule,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      sourceId,
      name: 'Big Spenders',
      key: 'big_spenders',
      kind: 'rule',
      rule,
    });
    const id = created.body.id as string;
    expect(id).toMatch(/^aud_/);

    // The definition as created; its state moves on (computing → live) as the processor works.
    expect(created.body).toMatchObject({ state: 'computing', members: 0 });
    expect(definition((await app.admin<Json>('GET', `/api/v1/audiences/${id}`)).body)).toEqual(
      definition(created.body),
    );
    const list = await app.admin<Json>('GET', `/api/v1/audiences?sourceId=${sourceId}`);
    expect(list.body.audiences.map((a: Json) => a.id)).toContain(id);

    expect((await app.admin('DELETE', `/api/v1/audiences/${id}`)).status).toBe(204);
    expect((await app.admin<Json>('GET', `/api/v1/audiences/${id}`)).status).toBe(404);
  });

  it('a synced audience has no rule', async () => {
    const created = await app.admin<Json>('POST', '/api/v1/audiences', { sourceId, name: 'CRM VIPs' });
    expect(created.body).toMatchObject({ key: 'crm_vips', kind: 'synced' });
    expect(created.body.rule).toBeUndefined();
  });

  it('refuses a second definition of the source whose name maps to the same key (409)', async () => {
    const first = await app.admin('POST', '/api/v1/audiences', { sourceId, name: 'VIP List (EU)' });
    expect(first.status).toBe(201);
    const again = await app.admin<Json>('POST', '/api/v1/audiences', { sourceId, name: 'vip list eu' });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: 'audience_key_taken', key: 'vip_list_eu' });
    const trait = await app.admin<Json>('POST', '/api/v1/computed-traits', {
      sourceId,
      name: 'VIP-List EU',
      compute: { lastTrait: 'plan' },
    });
    expect(trait.status).toBe(409);
  });

  it.each([
    [{ name: 'x', rule: { trait: { name: 'plan' } } }, 'rule.trait', /exactly one of equals/],
    [{ name: 'x', rule: { event: { name: 'A', withinDays: -1 } } }, 'rule.event.withinDays', /0/],
    [{ name: 'x', rule: { some: [] } }, 'rule', /exactly one of trait, event, all, any, not/],
    [{ name: '!!!' }, 'name', /letter or a digit/],
  ])('400 on a bad definition %j', async (body, path, message) => {
    const res = await app.admin<Json>('POST', '/api/v1/audiences', { sourceId, ...body });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('validation_failed');
    expect(res.body.issues[0].path).toBe(path);
    expect(res.body.issues[0].message).toMatch(message);
  });

  it('422 for an unknown source', async () => {
    const res = await app.admin<Json>('POST', '/api/v1/audiences', { sourceId: 'src_nope', name: 'x' });
    expect(res.status).toBe(422);
  });

  it('computed traits: create, read, list, delete; the OpenAPI document lists every path', async () => {
    const created = await app.admin<Json>('POST', '/api/v1/computed-traits', {
      sourceId,
      name: 'orderCount',
      compute: { count: { event: 'Order Completed' } },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      key: 'order_count',
      compute: { count: { event: 'Order Completed' } },
    });
    const id = created.body.id as string;
    expect((await app.admin<Json>('GET', `/api/v1/computed-traits/${id}`)).body).toEqual(created.body);
    const list = await app.admin<Json>('GET', '/api/v1/computed-traits');
    expect(list.body.computedTraits.map((t: Json) => t.id)).toContain(id);
    const bad = await app.admin<Json>('POST', '/api/v1/computed-traits', {
      sourceId,
      name: 'y',
      compute: { median: {} },
    });
    expect(bad.status).toBe(400);
    expect((await app.admin('DELETE', `/api/v1/computed-traits/${id}`)).status).toBe(204);

    const doc = (await fetch(`${app.adminUrl}/api/v1/openapi.json`).then((r) => r.json())) as Json;
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/audiences',
        '/api/v1/audiences/{id}',
        '/api/v1/computed-traits',
        '/api/v1/computed-traits/{id}',
      ]),
    );
    // docs/reference/admin-api.md is generated from the route table without a running Hookline.
    expect(doc).toEqual(adminOpenApiDocument());
  });

  it('a second process sees the definitions (read from the catalog topic)', async () => {
    const created = await app.admin<Json>('POST', '/api/v1/audiences', {
      sourceId,
      name: 'Pro users',
      rule: { trait: { name: 'plan', equals: 'pro' } },
    });
    const other = await startTestApp({ HOOKLINE_TOPIC_PREFIX: app.prefix });
    try {
      expect(
        definition((await other.admin<Json>('GET', `/api/v1/audiences/${created.body.id}`)).body),
      ).toEqual(definition(created.body));
    } finally {
      await other.stop();
    }
  });
});
