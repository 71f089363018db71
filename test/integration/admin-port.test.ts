import { ADMIN_TOKEN } from '../support/app';
import { createSource, sendTracking } from '../support/hookline';
import { testScope } from '../support/scope';

/**
 * HOOKLINE_ADMIN_PORT: the admin API on a server of its own, and no longer on the main port
 * (which keeps the tracking API, health and metrics).
 */
describe('admin API on its own port', () => {
  const scope = testScope();
  const get = (url: string, token?: string) =>
    fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });

  it('serves /api/v1/* only on the admin port, and the tracking API only on the main port', async () => {
    const t = await scope.app({ HOOKLINE_ADMIN_PORT: '0', HOOKLINE_ADMIN_HOST: '127.0.0.1' });
    expect(t.app.adminPort).toBeDefined();
    expect(t.adminUrl).not.toBe(t.baseUrl);

    // The admin API, with its token and its OpenAPI document, on the admin port.
    const src = await createSource(t); // through t.admin, i.e. the admin port
    expect((await get(`${t.adminUrl}/api/v1/sources`, ADMIN_TOKEN)).status).toBe(200);
    expect((await get(`${t.adminUrl}/api/v1/sources`)).status).toBe(401);
    expect((await get(`${t.adminUrl}/api/v1/openapi.json`)).status).toBe(200);

    // Not on the main port, token or not.
    for (const path of ['/api/v1/sources', `/api/v1/sources/${src.id}`, '/api/v1/openapi.json']) {
      const res = await get(`${t.baseUrl}${path}`, ADMIN_TOKEN);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
    }

    // The main port keeps tracking, health and metrics; the admin port serves none of them.
    const tracked = await sendTracking(t, src.writeKey, '/v1/track', { userId: 'u', event: 'E' });
    expect(tracked.status).toBe(200);
    for (const path of ['/readyz', '/metrics']) {
      expect((await get(`${t.baseUrl}${path}`)).status).toBe(200);
      expect((await get(`${t.adminUrl}${path}`)).status).toBe(404);
    }
    expect((await fetch(`${t.adminUrl}/v1/track`, { method: 'POST' })).status).toBe(404);
    expect((await get(`${t.adminUrl}/healthz`)).status).toBe(200);
  });

  it('serves everything on the main port when HOOKLINE_ADMIN_PORT is unset', async () => {
    const t = await scope.app();
    expect(t.app.adminPort).toBeUndefined();
    expect((await get(`${t.baseUrl}/api/v1/sources`, ADMIN_TOKEN)).status).toBe(200);
  });
});
