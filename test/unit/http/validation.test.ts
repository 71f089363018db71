import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { z } from 'zod';
import { parseJsonBody } from '../../../src/http/validation';

/** A request whose body is these bytes. */
function request(body: Buffer): IncomingMessage {
  return Object.assign(Readable.from([body]), { headers: {} }) as unknown as IncomingMessage;
}

const schema = z.object({ sharedSecret: z.string() });
const parse = (body: Buffer) => parseJsonBody(request(body), schema, 1_024);

describe('parseJsonBody', () => {
  it('decodes a UTF-8 body', async () => {
    await expect(parse(Buffer.from('{"sharedSecret":"café ☕"}'))).resolves.toEqual({
      sharedSecret: 'café ☕',
    });
  });

  // Regression: invalid bytes were replaced with U+FFFD, silently changing e.g. a shared secret.
  it.each([
    ['invalid bytes', Buffer.from([0xff, 0xfe])],
    ['a truncated sequence', Buffer.from([0xe2, 0x98])],
    ['an overlong encoding', Buffer.from([0xc0, 0xaf])],
    ['a UTF-16 surrogate', Buffer.from([0xed, 0xa0, 0x80])],
  ])('answers 400 invalid_json to a body with %s', async (_, bad) => {
    const body = Buffer.concat([Buffer.from('{"sharedSecret":"s'), bad, Buffer.from('"}')]);
    await expect(parse(body)).rejects.toMatchObject({
      status: 400,
      code: 'invalid_json',
      message: 'the request body is not valid UTF-8',
    });
  });

  it('still refuses a body starting with a BOM as invalid JSON', async () => {
    await expect(parse(Buffer.from('\ufeff{"sharedSecret":"s"}'))).rejects.toMatchObject({
      status: 400,
      code: 'invalid_json',
      message: 'the request body is not valid JSON',
    });
  });
});
