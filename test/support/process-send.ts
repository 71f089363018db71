/**
 * Records what a cluster child would send its primary: replaces `process.send` for each test of
 * the enclosing `describe` and gives back the array the messages land in.
 */
export function recordProcessSend(): unknown[] {
  const sent: unknown[] = [];
  const originalSend = process.send;
  beforeEach(() => {
    sent.length = 0;
    process.send = ((message: unknown) => sent.push(message) > 0) as typeof process.send;
  });
  afterEach(() => {
    process.send = originalSend;
  });
  return sent;
}
