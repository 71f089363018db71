import type { Config } from '../config/config';

/** The readiness check of the schema registry: its subject list answers within 2 s. */
export async function registryAnswers(baseUrl: string, auth: Config['registry']): Promise<boolean> {
  const headers: Record<string, string> = {};
  if (auth.username && auth.password) {
    headers.authorization = `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`;
  }
  const res = await fetch(`${baseUrl.replace(/\/$/, '')}/subjects`, {
    headers,
    signal: AbortSignal.timeout(2_000),
  });
  return res.ok;
}
