import { type TestApp, uniquePrefix } from '../support/app';
import { eventually } from '../support/eventually';
import { conditionalAdmin, createDestination, createSource, sendTracking } from '../support/hookline';
import { testScope } from '../support/scope';

interface DestinationBody {
  name: string;
  version: number;
  settings: { webhooks: { url: string; disabled?: { reason: string } }[] };
}

/**
 * Catalog writes on two replicas of one cluster are compare-and-set on the entity's version,
 * decided on the catalog topic: with If-Match, one of two racing changes wins and the other gets
 * 412; without, a change that loses is re-applied on what won, so an automatic 410 disable and an
 * admin PATCH both survive.
 */
describe('catalog writes on two replicas', () => {
  const { app, receiver } = testScope();

  /** Two replicas; `bRoles` narrows the second one (default: every role). */
  async function twoReplicas(bRoles?: string): Promise<[TestApp, TestApp]> {
    const env = { HOOKLINE_TOPIC_PREFIX: uniquePrefix() };
    return [await app(env), await app({ ...env, ...(bRoles && { HOOKLINE_ROLES: bRoles }) })];
  }

  const read = async (t: TestApp, id: string) => {
    const res = await conditionalAdmin(t, 'GET', `/api/v1/destinations/${id}`);
    return { ...res, body: res.body as unknown as DestinationBody };
  };

  /** Waits until the replica has applied the destination at `version` (or later). */
  const seenAt = (t: TestApp, id: string, version: number) =>
    eventually(
      async () => {
        const res = await read(t, id);
        return res.status === 200 && res.body.version >= version ? res : undefined;
      },
      { what: `destination at version ${version}` },
    );

  it('answers ETags, and of two changes racing from one version on two replicas, one wins and one gets 412', async () => {
    const [a, b] = await twoReplicas();
    const src = await createSource(a);
    const ok = await receiver();
    const id = await createDestination(a, { sourceId: src.id, webhooks: [{ url: ok.url }] });
    const first = await seenAt(b, id, 1);
    expect(first.etag).toBe('"1"');
    expect(first.body.version).toBe(1);

    for (let round = 1; round <= 5; round++) {
      const etag = `"${round}"`;
      await seenAt(b, id, round);
      const answers = await Promise.all(
        [a, b].map((t, i) =>
          conditionalAdmin(t, 'PATCH', `/api/v1/destinations/${id}`, {
            body: { name: `round-${round}-${i === 0 ? 'a' : 'b'}` },
            ifMatch: etag,
          }),
        ),
      );
      const statuses = answers.map((x) => x.status).sort();
      expect(statuses).toEqual([200, 412]);
      const winner = answers.find((x) => x.status === 200)!;
      const loser = answers.find((x) => x.status === 412)!;
      expect(winner.etag).toBe(`"${round + 1}"`);
      expect(loser.body).toMatchObject({ error: 'precondition_failed', currentVersion: round + 1 });
      expect(String(loser.body.message)).toContain(`current version is ${round + 1}`);
      // Both replicas hold the winner's change.
      for (const t of [a, b]) {
        const seen = await seenAt(t, id, round + 1);
        expect(seen.body).toMatchObject({ name: (winner.body as { name: string }).name, version: round + 1 });
      }
    }
    // A stale If-Match on a delete is refused too; a current one deletes.
    expect(
      (await conditionalAdmin(b, 'DELETE', `/api/v1/destinations/${id}`, { ifMatch: '"1"' })).status,
    ).toBe(412);
    expect(
      (await conditionalAdmin(b, 'DELETE', `/api/v1/destinations/${id}`, { ifMatch: '"6"' })).status,
    ).toBe(204);
  });

  it('keeps both a 410 Gone auto-disable and admin PATCHes racing it from the other replica', async () => {
    // b runs no worker: the disable always comes from a, the renames from b.
    const [a, b] = await twoReplicas('ingest,router');
    const src = await createSource(a);
    const gone = await receiver(() => ({ status: 410 }));
    const ok = await receiver();
    const id = await createDestination(a, {
      sourceId: src.id,
      webhooks: [{ url: gone.url }, { url: ok.url }],
    });
    const before = await seenAt(b, id, 1);

    // Renames on b, without If-Match, until a's worker has disabled the 410 URL:
    // the disable lands among them. (The unit tests force each interleaving; this is the real thing.)
    const batch = [{ type: 'track', userId: 'u', event: 'E', messageId: 'gone-1' }];
    expect((await sendTracking(a, src.writeKey, '/v1/batch', { batch })).status).toBe(200);
    let renames = 0;
    while (renames < 300) {
      renames++;
      const res = await conditionalAdmin(b, 'PATCH', `/api/v1/destinations/${id}`, {
        body: { name: `rename-${renames}` },
      });
      expect(res.status).toBe(200);
      if ((res.body as unknown as DestinationBody).settings.webhooks[0]?.disabled) break;
    }
    const lastName = `rename-${renames}`;
    await eventually(() => ok.requests.length >= 1 || undefined, { what: 'the delivery to the second URL' });

    // Both changes survive, as both replicas see them once they have applied the last record.
    for (const t of [a, b]) {
      const now = await eventually(
        async () => {
          const res = await read(t, id);
          return res.body.settings.webhooks[0]?.disabled && res.body.name === lastName ? res : undefined;
        },
        { what: 'the 410 URL disabled and the last rename, together' },
      );
      expect(now.body.settings.webhooks[0]!.disabled!.reason).toBe('http_410');
      expect(now.body.settings.webhooks[1]!.disabled).toBeUndefined();
    }
    const current = await read(b, id);
    expect((await read(a, id)).body.version).toBe(current.body.version);

    // A client still holding the first ETag is refused, and its re-read change keeps the disable.
    const stale = await conditionalAdmin(a, 'PATCH', `/api/v1/destinations/${id}`, {
      body: { enabled: false },
      ifMatch: before.etag!,
    });
    expect(stale).toMatchObject({ status: 412, body: { currentVersion: current.body.version } });
    const retried = await conditionalAdmin(a, 'PATCH', `/api/v1/destinations/${id}`, {
      body: { enabled: false },
      ifMatch: current.etag!,
    });
    expect(retried.status).toBe(200);
    expect((retried.body as unknown as DestinationBody).settings.webhooks[0]!.disabled).toBeDefined();
  });
});
