import { errorMessage } from '../../core/errors';
import type { AttemptQuery, AttemptsFound } from './log';
import { AttemptIndexUnavailableError } from '../errors';
import { attemptFromView, type AttemptView } from '../views';

/** Marks an attempt query one process passed to another: it is answered there, never passed on. */
export const FORWARDED_HEADER = 'x-hookline-forwarded';

/** How long a forwarded query may take before the asking process answers 503. */
export const FORWARD_TIMEOUT_MS = 5_000;

/**
 * Asks the process keeping a destination's attempts (HOOKLINE_ATTEMPT_INDEX=shared), through its
 * admin API (`baseUrl`: its HOOKLINE_ADVERTISED_URL), with this process's admin token. Its 404
 * (an unknown destination) is "not known"; anything but a 200 or a 404 is 503
 * attempt_index_unavailable here, without the other process's URL or answer in the message.
 */
export async function forwardAttemptQuery(
  baseUrl: string,
  adminToken: string | undefined,
  destinationId: string,
  query: AttemptQuery,
  timeoutMs = FORWARD_TIMEOUT_MS,
): Promise<AttemptsFound> {
  const url = new URL(`/api/v1/destinations/${encodeURIComponent(destinationId)}/attempts`, baseUrl);
  url.searchParams.set('limit', String(query.limit));
  if (query.messageId !== undefined) url.searchParams.set('messageId', query.messageId);
  if (query.outcome !== undefined) url.searchParams.set('outcome', query.outcome);
  let res: Response;
  try {
    res = await fetch(url, {
      headers: {
        [FORWARDED_HEADER]: '1',
        ...(adminToken !== undefined && { authorization: `Bearer ${adminToken}` }),
      },
      redirect: 'error',
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    throw new AttemptIndexUnavailableError(`the process keeping them did not answer (${errorMessage(err)})`);
  }
  if (res.status === 404) {
    await res.body?.cancel();
    return { known: false, attempts: [] };
  }
  if (res.status !== 200) {
    await res.body?.cancel();
    throw new AttemptIndexUnavailableError(`the process keeping them answered ${res.status}`);
  }
  const body = (await res.json()) as { attempts: AttemptView[] };
  return { known: true, attempts: body.attempts.map((view) => attemptFromView(destinationId, view)) };
}
