/**
 * TLS verification on the HTTP side of delivery (no Kafka): a self-signed certificate is refused.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { receiver, status, entry, useWebhookClients } from '../support/webhook-http';

const { deliver } = useWebhookClients();

describe('delivery over HTTPS with a self-signed certificate', () => {
  let dir: string;
  let key: Buffer;
  let cert: Buffer;

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'hookline-tls-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-days',
        '1',
        '-keyout',
        path.join(dir, 'key.pem'),
        '-out',
        path.join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    key = readFileSync(path.join(dir, 'key.pem'));
    cert = readFileSync(path.join(dir, 'cert.pem'));
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses it: result tls, not retriable, and the receiver never sees a request', async () => {
    const r = await receiver(status(200), { key, cert });
    const outcome = await deliver([entry(r.url)], { sharedSecret: 's' });

    expect(outcome).toMatchObject({
      kind: 'failed',
      retriable: false,
      attempts: [{ urlIndex: 0, result: 'tls' }],
    });
    expect(outcome.attempts[0]!.error).toMatch(/self[- ]signed/i);
    expect(r.received).toHaveLength(0);
    expect(r.connections()).toBe(0); // the handshake never completed
  });

  it('still fails over to the next URL after a TLS refusal', async () => {
    const insecure = await receiver(status(200), { key, cert });
    const plain = await receiver(status(200));
    const outcome = await deliver([entry(insecure.url), entry(plain.url)]);

    expect(outcome).toMatchObject({
      kind: 'delivered',
      urlIndex: 1,
      attempts: [{ result: 'tls' }, { result: 'success' }],
    });
    expect(insecure.received).toHaveLength(0);
  });
});
