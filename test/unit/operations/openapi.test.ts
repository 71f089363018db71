import { adminApiDocument } from '../../../src/admin-api';
import { DELETION_ROUTE_SPEC } from '../../../src/deletions/spec';
import { OPERATIONS_ROUTE_SPECS } from '../../../src/operations/specs';

type Json = Record<string, unknown>;

describe('operations and deletion requests in the admin OpenAPI document', () => {
  const doc = adminApiDocument([...OPERATIONS_ROUTE_SPECS, DELETION_ROUTE_SPEC]);
  const paths = doc.paths as Record<string, Record<string, Json>>;

  it('describes every route registered apart from the catalog table', () => {
    const operations = Object.entries(paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual(
      [
        'GET /api/v1/dead-letters',
        'GET /api/v1/dead-letters/{taskId}',
        'POST /api/v1/dead-letters/redrive',
        'GET /api/v1/destinations/{id}/attempts',
        'POST /api/v1/destinations/{id}/replay',
        'GET /api/v1/replays/{id}',
        'POST /api/v1/deletion-requests',
      ].sort(),
    );
  });

  it('documents bodies, queries and error answers', () => {
    const redrive = paths['/api/v1/dead-letters/redrive']!.post!;
    expect(redrive.requestBody).toEqual({
      required: true,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/RedriveRequest' } } },
    });
    const list = paths['/api/v1/dead-letters']!.get!;
    expect((list.parameters as { name: string }[]).map((p) => p.name)).toEqual([
      'destinationId',
      'reason',
      'since',
      'until',
      'limit',
    ]);
    expect(Object.keys(list.responses as Json).sort()).toEqual(['200', '400', '401', '503']);
    const replay = paths['/api/v1/destinations/{id}/replay']!.post!;
    expect(Object.keys(replay.responses as Json).sort()).toEqual([
      '202',
      '400',
      '401',
      '404',
      '409',
      '429',
      '503',
    ]);
    const schemas = (doc.components as { schemas: Json }).schemas;
    expect(Object.keys(schemas)).toEqual(
      expect.arrayContaining(['DeadLetter', 'TaskDeadLetter', 'Attempt', 'Replay', 'RedriveResult']),
    );
  });
});
