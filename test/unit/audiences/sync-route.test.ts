import { Readable } from 'node:stream';
import type { Audience } from '../../../src/catalog';
import { HttpError } from '../../../src/http/respond';
import type { ComputationStatus } from '../../../src/audiences/status-index';
import type { PartitionedCommand } from '../../../src/audiences/sync';
import { syncRoute } from '../../../src/audiences/sync-route';

const synced: Audience = {
  id: 'aud_1',
  sourceId: 's',
  name: 'CRM VIPs',
  key: 'crm_vips',
  createdAt: '2024-01-01T00:00:00.000Z',
  updatedAt: '2024-01-01T00:00:00.000Z',
};

/** POSTs a sync of `body` while the audience's status is `state`: the status sent, or the HttpError. */
async function postSync(state: ComputationStatus['state'], body: unknown) {
  const published: PartitionedCommand[] = [];
  const route = syncRoute({
    path: '/api/v1/audiences/{id}/sync',
    audience: () => synced,
    sync: { partitions: 2, partitionOf: () => 0, publish: async (c) => void published.push(...c) },
    status: { statusOf: () => ({ state, members: 0 }) },
  });
  let status: number | undefined;
  const res = { writeHead: (code: number) => (status = code), end: () => undefined };
  const req = Object.assign(Readable.from([Buffer.from(JSON.stringify(body))]), { headers: {} });
  try {
    await route.handler({ req: req as never, res: res as never, url: new URL('http://x'), params: {} });
  } catch (err) {
    if (!(err instanceof HttpError)) throw err;
    return { status: err.status, code: err.code, published: published.length };
  }
  return { status, published: published.length };
}

describe('POST /api/v1/audiences/{id}/sync', () => {
  it('is refused (409 audience_computing) and publishes nothing while the audience is not live', async () => {
    // A processor whose catalog does not know the audience yet drops its commands.
    expect(await postSync('computing', { add: ['u1'] })).toEqual({
      status: 409,
      code: 'audience_computing',
      published: 0,
    });
  });

  it('is accepted (202) once it is live on every partition', async () => {
    expect(await postSync('live', { add: ['u1'] })).toEqual({ status: 202, published: 1 });
  });
});
