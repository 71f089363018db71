import { z } from 'zod';
import { parseNetworks } from '../../security/address-policy';
import { envDurationMs, envSecretsKey, envString, envValues } from '../env';

/** The admin token, the key sealing secrets, signing and the SSRF guard. */
export const securityEnv = {
  HOOKLINE_ADMIN_TOKEN: envString()
    .optional()
    .meta({
      description:
        'Bearer token of the admin API (`Authorization: Bearer <token>`). When unset, a random one is ' +
        'generated and printed at every start; set it in production.',
      shownDefault: 'generated at start',
    }),
  HOOKLINE_SECRETS_KEY: envSecretsKey()
    .optional()
    .meta({
      description:
        'Key that seals destination secrets and static header values on the catalog topic ' +
        '(AES-256-GCM). Every process needs the same key; keep it, since stored secrets cannot be ' +
        'read without it. Required in production (the process exits with status 2 without it); ' +
        '`npm start` generates a development key once and keeps it in `~/.cache/hookline/secrets.key`.',
      shownDefault: 'required in production; `npm start`: a kept development key',
    }),
  HOOKLINE_SECRETS_KEY_PREVIOUS: envSecretsKey()
    .optional()
    .describe(
      'During a key rotation: the key being replaced. Values sealed with it stay readable (never ' +
        'written) until `hookline secrets reencrypt` has moved every destination to the current key. ' +
        'Needs `HOOKLINE_SECRETS_KEY` (the new key) beside it.',
    ),
  HOOKLINE_SECRET_ROTATION_OVERLAP: envDurationMs()
    .default(86_400_000)
    .describe(
      "After a destination's `standardWebhooksSecret` changes, requests are signed with the new and " +
        'the previous secret for this long, then with the new one only.',
    ),
  HOOKLINE_ALLOWED_NETWORKS: envValues(
    z.preprocess(
      (v) => (v === undefined ? '' : v),
      z.string().transform((value, ctx) => {
        const parsed = parseNetworks(value);
        if ('problem' in parsed) {
          ctx.addIssue({ code: 'custom', message: parsed.problem });
          return z.NEVER;
        }
        return parsed.networks;
      }),
    ),
    { accepts: 'comma-separated CIDRs (`127.0.0.0/8,::1/128`)' },
  ).meta({
    description:
      'SSRF guard exceptions: networks webhook URLs may reach although they are loopback, private, ' +
      'link-local, … (e.g. `127.0.0.0/8,::1/128` to deliver to receivers on your own machine).',
    shownDefault: 'none',
  }),
};
