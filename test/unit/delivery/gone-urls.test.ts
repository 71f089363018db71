import { GoneUrls } from '../../../src/delivery/gone-urls';
import { silentLogger } from '../../../src/observability/logger';
import type { Destination, WebhookEntry } from '../../../src/records/catalog-model';

const URL_A = 'https://a.example.com/hook';
const URL_B = 'https://b.example.com/hook';

/**
 * A URL that answered 410 is disabled in the catalog; the process-local memo must not outlive that
 * mark. Before, a URL re-added after a 410 (the webhook list replaced, the mark cleared) and
 * answering 410 again was never disabled again by a process that had disabled it once.
 */
describe('GoneUrls', () => {
  /** A catalog of one destination whose `disableWebhook` marks the URL, as the service's write does once applied. */
  function setup(options: { failWrites?: number } = {}) {
    let webhooks: WebhookEntry[] = [
      { url: URL_A, headers: {} },
      { url: URL_B, headers: {} },
    ];
    let failures = options.failWrites ?? 0;
    const pending: (() => void)[] = [];
    let hold = false;
    const disableWebhook = jest.fn(async (_destinationId: string, url: string, reason: string) => {
      if (hold) await new Promise<void>((resolve) => pending.push(resolve));
      if (failures > 0) {
        failures -= 1;
        throw new Error('Kafka unavailable');
      }
      const index = webhooks.findIndex((w) => w.url === url && !w.disabled);
      if (index === -1) return undefined; // the service's answer when it changes nothing
      webhooks = webhooks.map((w, i) =>
        i === index ? { ...w, disabled: { at: '2024-05-01T10:00:00.000Z', reason } } : w,
      );
      return { id: 'd' };
    });
    const onDisabled = jest.fn();
    // What this process has applied; `lagging` freezes it, as when a write's record is not applied yet.
    let applied: WebhookEntry[] | undefined;
    const catalog = {
      destination: (id: string) =>
        id === 'd'
          ? ({ id, settings: { webhooks: applied ?? webhooks } } as unknown as Destination)
          : undefined,
    };
    const gone = new GoneUrls({ catalog, disableWebhook, onDisabled, logger: silentLogger() });
    return {
      gone,
      disableWebhook,
      onDisabled,
      webhooks: () => webhooks,
      /** An admin PATCH of settings.webhooks: the list replaced, the disabled marks gone. */
      replaceList: (urls: string[]) => {
        webhooks = urls.map((url) => ({ url, headers: {} }));
      },
      lagging: () => {
        applied = webhooks;
      },
      holdWrites: () => {
        hold = true;
      },
      releaseWrites: () => {
        hold = false;
        pending.splice(0).forEach((resolve) => resolve());
      },
    };
  }

  it('disables a URL that answered 410, and only that URL', async () => {
    const s = setup();
    await s.gone.disable('d', URL_A);
    expect(s.disableWebhook).toHaveBeenCalledWith('d', URL_A, 'http_410');
    expect(s.webhooks().map((w) => w.disabled?.reason)).toEqual(['http_410', undefined]);
    expect(s.onDisabled).toHaveBeenCalledWith('d');
  });

  it('disables a re-added URL again when it answers 410 again', async () => {
    const s = setup();
    await s.gone.disable('d', URL_A);
    s.replaceList([URL_A, URL_B]);
    expect(s.webhooks()[0]?.disabled).toBeUndefined();

    await s.gone.disable('d', URL_A);

    expect(s.disableWebhook).toHaveBeenCalledTimes(2);
    expect(s.webhooks()[0]?.disabled?.reason).toBe('http_410');
    expect(s.onDisabled).toHaveBeenCalledTimes(2);
  });

  it('writes once for the 410s of tasks in flight while the write is under way', async () => {
    const s = setup();
    s.holdWrites();
    const first = s.gone.disable('d', URL_A);
    const second = s.gone.disable('d', URL_A);
    s.releaseWrites();
    await Promise.all([first, second]);
    expect(s.disableWebhook).toHaveBeenCalledTimes(1);
    expect(s.onDisabled).toHaveBeenCalledTimes(1);
  });

  it.each([
    ['already disabled in the catalog (by another process)', 'd', URL_A, true],
    ['no longer on the destination', 'd', 'https://gone.example.com/hook', false],
    ['of a deleted destination', 'deleted', URL_A, false],
  ])('writes nothing for a URL %s', async (_case, destinationId, url, disableFirst) => {
    const s = setup();
    if (disableFirst) await s.gone.disable('d', URL_A);
    s.disableWebhook.mockClear();
    s.onDisabled.mockClear();
    await s.gone.disable(destinationId, url);
    expect(s.disableWebhook).not.toHaveBeenCalled();
    expect(s.onDisabled).not.toHaveBeenCalled();
  });

  it('does not count a write that found the URL already disabled', async () => {
    const s = setup();
    s.lagging(); // this process still shows URL_A enabled...
    await s.gone.disable('d', URL_A); // ...when a write (say, one whose wait timed out) lands
    s.onDisabled.mockClear();

    await s.gone.disable('d', URL_A);

    expect(s.disableWebhook).toHaveBeenCalledTimes(2);
    expect(s.onDisabled).not.toHaveBeenCalled();
  });

  it('tries a failed write again at the next 410', async () => {
    const s = setup({ failWrites: 1 });
    await s.gone.disable('d', URL_A);
    expect(s.webhooks()[0]?.disabled).toBeUndefined();
    expect(s.onDisabled).not.toHaveBeenCalled();

    await s.gone.disable('d', URL_A);

    expect(s.disableWebhook).toHaveBeenCalledTimes(2);
    expect(s.webhooks()[0]?.disabled?.reason).toBe('http_410');
    expect(s.onDisabled).toHaveBeenCalledTimes(1);
  });
});
