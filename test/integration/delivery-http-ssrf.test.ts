/**
 * The SSRF guard on the HTTP side of delivery (no Kafka): literal addresses, names, DNS
 * rebinding, and exceptions for allowed networks.
 */
import { createWebhookClient, type WebhookClient } from '../../src/delivery/http/client';
import { createAddressPolicy } from '../../src/security/address-policy';
import type { ResolvedAddress } from '../../src/delivery/http/guarded-lookup';
import {
  receiver,
  status,
  entry,
  loopbackAllowed,
  useWebhookClients,
  type Receiver,
} from '../support/webhook-http';

const { deliver } = useWebhookClients();

describe('the SSRF guard', () => {
  const clients: WebhookClient[] = [];
  const guarded = (options: Parameters<typeof createWebhookClient>[0] = {}) => {
    const c = createWebhookClient(options);
    clients.push(c);
    return c;
  };
  afterAll(() => clients.forEach((c) => c.close()));

  const port = (r: Receiver) => new URL(r.url).port;
  const refused = {
    kind: 'failed',
    retriable: false,
    attempts: [{ urlIndex: 0, result: 'blocked_address' }],
  };

  it.each([
    'http://127.0.0.1:PORT/hook',
    'http://2130706433:PORT/hook',
    'http://0x7f.1:PORT/hook',
    'http://0177.0.0.1:PORT/hook',
    'http://127.1:PORT/hook',
    'http://[::ffff:127.0.0.1]:PORT/hook',
  ])('refuses %s: no connection reaches the receiver', async (form) => {
    const r = await receiver(status(200));
    const outcome = await deliver([entry(form.replace('PORT', port(r)))], { via: guarded() });
    expect(outcome).toMatchObject(refused);
    expect(outcome.attempts[0]).not.toHaveProperty('error');
    expect(outcome.attempts[0]).not.toHaveProperty('status');
    expect(r.connections()).toBe(0);
  });

  it('refuses localhost: the name resolves to loopback, and no connection is opened', async () => {
    const r = await receiver(status(200));
    const outcome = await deliver([entry(`http://localhost:${port(r)}/hook`)], { via: guarded() });
    expect(outcome).toMatchObject(refused);
    expect(outcome.attempts[0]).not.toHaveProperty('error');
    expect(r.connections()).toBe(0);
  });

  it('DNS rebinding: connects to the address it checked, and refuses the name once it rebinds', async () => {
    // The receiver answers each request on a fresh connection, so every delivery looks the name up.
    const r = await receiver((res) => void res.writeHead(200, { connection: 'close' }).end('ok'));
    const answers: ResolvedAddress[][] = [
      [{ address: '127.0.0.1', family: 4 }],
      [
        { address: '127.0.0.1', family: 4 },
        { address: '10.0.0.5', family: 4 },
      ],
      [{ address: '169.254.169.254', family: 4 }],
    ];
    const resolve = jest.fn(async () => answers.shift()!);
    const c = guarded({ addressPolicy: loopbackAllowed, resolve });
    // `.invalid` never resolves through the system: only the checked answer can be connected to.
    const url = `http://rebind.invalid:${port(r)}/hook`;

    expect(await deliver([entry(url)], { via: c })).toMatchObject({ kind: 'delivered', status: 200 });
    expect(resolve).toHaveBeenCalledTimes(1);
    expect(r.received[0]!.headers.host).toBe(`rebind.invalid:${port(r)}`);
    expect(r.connections()).toBe(1);

    // Now one of its addresses is private, then it rebinds to the metadata service: refused.
    expect(await deliver([entry(url)], { via: c })).toMatchObject(refused);
    expect(await deliver([entry(url)], { via: c })).toMatchObject(refused);
    expect(resolve).toHaveBeenCalledTimes(3);
    expect(r.connections()).toBe(1);
  });

  it('delivers to loopback once HOOKLINE_ALLOWED_NETWORKS-style exceptions allow it', async () => {
    const r = await receiver(status(200));
    const allowLocalhost = createAddressPolicy({ allowedNetworks: ['127.0.0.0/8', '::1/128'] });
    const outcome = await deliver([entry(`http://localhost:${port(r)}/hook`)], {
      via: guarded({ addressPolicy: allowLocalhost }),
    });
    expect(outcome).toMatchObject({ kind: 'delivered', status: 200 });
    expect(r.connections()).toBe(1);
  });
});
