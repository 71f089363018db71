/**
 * Request bodies exactly as the real clients sent them (captured from the programs in this
 * folder against a plain HTTP server; only the write key is replaced). Replayed by
 * test/integration/ingest.test.ts so the request shapes stay covered without a Go toolchain.
 * All three authenticate with HTTP Basic (key as user, empty password); analytics-node also
 * puts `writeKey` in the body.
 */

/** analytics-go v2 (2016): batch-level context, messageId and sentAt; `+0000` timestamps. */
export const ANALYTICS_GO_V2_BATCH =
  '{"context":{"library":{"name":"analytics-go","version":"2.1.0"}},"batch":[' +
  '{"traits":{"email":"zoe@example.com","logins":42,"name":"Zoë Client","plan":"pro"},"userId":"go2-user","type":"identify","messageId":"57144ce6-b53c-4f06-97e2-e385c361d0a6","timestamp":"2026-11-22T04:42:43+0000"},' +
  '{"properties":{"currency":"EUR","items":3,"orderId":"go2-order","revenue":19.9},"userId":"go2-user","event":"Order Completed","type":"track","messageId":"d99a4d2a-392b-49d2-ab1a-045424c4d114","timestamp":"2026-11-22T04:42:43+0000"},' +
  '{"properties":{"step":1},"anonymousId":"go2-anon","event":"Signup Viewed","type":"track","messageId":"3b28b383-4776-41e1-988c-d820ba8be6e9","timestamp":"2026-11-22T04:42:43+0000"},' +
  '{"properties":{"path":"/pricing","title":"Pricing"},"userId":"go2-user","name":"Pricing","type":"page","messageId":"fdd7c342-b52e-4003-974c-389c12a396a9","timestamp":"2026-11-22T04:42:43+0000"},' +
  '{"traits":{"employees":120,"name":"Acme"},"userId":"go2-user","groupId":"go2-group","type":"group","messageId":"86d5cd83-186b-445f-badf-34516c611e3f","timestamp":"2026-11-22T04:42:43+0000"},' +
  '{"previousId":"go2-anon","userId":"go2-user","type":"alias","messageId":"b52f9863-a140-48d4-8344-14019b173a70","timestamp":"2026-11-22T04:42:43+0000"}' +
  '],"messageId":"c775f224-1879-49bb-ad69-7d2908701e58","sentAt":"2026-11-22T04:42:43+0000"}';

/** analytics-go v3 (v3.3.0): RFC 3339 timestamps with nanoseconds; library in a batch-level context. */
export const ANALYTICS_GO_V3_BATCH =
  '{"messageId":"d77530e7-97de-41be-bc65-05dc2bcfa243","sentAt":"2026-11-22T04:43:02.912074224Z","batch":[' +
  '{"type":"identify","messageId":"bf29cbd4-513a-439e-8a63-ffe8a021daf5","userId":"go3-user","timestamp":"2026-11-22T04:43:02.911671306Z","traits":{"email":"zoe@example.com","logins":42,"name":"Zoë Client","plan":"pro"}},' +
  '{"type":"track","messageId":"cd763ab2-4917-4620-8cb9-07309b4d68d6","userId":"go3-user","event":"Order Completed","timestamp":"2026-11-22T04:43:02.911673499Z","properties":{"currency":"EUR","items":3,"orderId":"go3-order","revenue":19.9}},' +
  '{"type":"track","messageId":"59612248-a1fb-409d-8578-238ac6a56c18","anonymousId":"go3-anon","event":"Signup Viewed","timestamp":"2026-11-22T04:43:02.91167398Z","properties":{"step":1}},' +
  '{"type":"page","messageId":"9d391202-1236-406c-b61c-79b62c3c7b81","userId":"go3-user","name":"Pricing","timestamp":"2026-11-22T04:43:02.91167445Z","properties":{"path":"/pricing","title":"Pricing"}},' +
  '{"type":"screen","messageId":"e5b4fb22-a532-472a-88ee-b5ce953599bc","userId":"go3-user","name":"Settings","timestamp":"2026-11-22T04:43:02.911674741Z","properties":{"tab":"privacy"}},' +
  '{"type":"group","messageId":"09a98295-e86f-40a4-8857-3acb6e6b2d0c","userId":"go3-user","groupId":"go3-group","timestamp":"2026-11-22T04:43:02.911675382Z","traits":{"employees":120,"name":"Acme"}},' +
  '{"type":"alias","messageId":"0361aef8-f4e5-401d-ac63-a64d2a03b06a","previousId":"go3-anon","userId":"go3-user","timestamp":"2026-11-22T04:43:02.911676263Z"}' +
  '],"context":{"library":{"name":"analytics-go","version":"3.0.0"}}}';

/** @segment/analytics-node 3.1.0: per-event context and integrations, `_metadata`, `writeKey` in the body. */
export function analyticsNodeBatch(writeKey: string): string {
  const common = '"context":{"library":{"name":"@segment/analytics-node","version":"3.1.0"}}';
  const metadata = '"_metadata":{"nodeVersion":"v20.20.2","jsRuntime":"node"}';
  return (
    '{"batch":[' +
    `{"timestamp":"2026-11-22T04:43:04.111Z","integrations":{},"type":"identify","userId":"node-user","traits":{"name":"Zoë Client","email":"zoe@example.com","plan":"pro","logins":42},${common},"messageId":"node-next-1795322584111-0571058f-18d0-4e47-848a-b63f346ae616",${metadata}},` +
    `{"timestamp":"2026-11-22T04:43:04.112Z","integrations":{},"event":"Order Completed","type":"track","properties":{"revenue":19.9,"currency":"EUR","orderId":"node-order","items":3},${common},"userId":"node-user","messageId":"node-next-1795322584112-058f18d0-8e47-448a-b63f-346ae616056b",${metadata}},` +
    `{"timestamp":"2026-11-22T04:43:04.112Z","integrations":{},"event":"Signup Viewed","type":"track","properties":{"step":1},${common},"anonymousId":"node-anon","messageId":"node-next-1795322584112-18d08e47-048a-463f-b46a-e616056b725c",${metadata}},` +
    `{"timestamp":"2026-11-22T04:43:04.112Z","integrations":{},"type":"page","properties":{"path":"/pricing","title":"Pricing"},"name":"Pricing",${common},"userId":"node-user","messageId":"node-next-1795322584112-8e47048a-b63f-446a-a616-056b725cfe50",${metadata}},` +
    `{"timestamp":"2026-11-22T04:43:04.113Z","integrations":{},"type":"screen","properties":{"tab":"privacy"},"name":"Settings",${common},"userId":"node-user","messageId":"node-next-1795322584113-048ab63f-346a-4616-856b-725cfe50d941",${metadata}},` +
    `{"timestamp":"2026-11-22T04:43:04.113Z","integrations":{},"type":"group","traits":{"name":"Acme","employees":120},"groupId":"node-group",${common},"userId":"node-user","messageId":"node-next-1795322584113-b63f346a-e616-456b-b25c-fe50d9419c4a",${metadata}},` +
    `{"timestamp":"2026-11-22T04:43:04.113Z","integrations":{},"userId":"node-user","type":"alias","previousId":"node-anon",${common},"messageId":"node-next-1795322584113-346ae616-056b-425c-be50-d9419c4af96a",${metadata}}` +
    `],"writeKey":${JSON.stringify(writeKey)},"sentAt":"2026-11-22T04:43:04.117Z"}`
  );
}
