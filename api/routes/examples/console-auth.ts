import { AT, LATER, one } from './common.js';

/** The console's sign-up, sign-in and security routes: the user, sessions, codes, passkeys, providers. */

export const USER = {
  id: '6f1e2d3c-4b5a-4978-8c6d-5e4f3a2b1c0d',
  email: 'owner@example.com',
  nickname: 'Ada',
  locale: 'en-US',
  region: 'DE',
  has_password: true,
  created_at: AT,
};

/** Routes that answer a session: sign-in, its second step, the confirmed sign-up, passkey and provider sign-ins. */
export const SESSION_RESPONSE = one(
  {
    token: 'gws_…the session token (also set as the HttpOnly cookie)…',
    expires_at: '2026-03-02T12:00:00.000Z',
    user: USER,
  },
  'req_3f9a1d',
);
/** Routes that e-mail a code: sign-up, password reset, a sensitive action's code. */
export const CODE_SENT_RESPONSE = one({ expires_at: '2026-01-31T12:10:00.000Z', cooldown_seconds: 60 }, 'req_3f9a1c');
export const PROFILE_EXAMPLES = {
  request: { nickname: 'Ada', locale: 'en-US', region: 'DE' },
  response: one(USER, 'req_3f9a1e'),
};

export const SESSION_TOKEN_RESPONSE = one(
  { token: 'gwb_…a signed token for this session…', expires_at: LATER },
  'req_4b8c1e',
);
export const ME_RESPONSE = one(USER, 'req_4b8c20');
export const MFA_STATUS_RESPONSE = one({ enabled: false }, 'req_4b8c21');
export const TWO_FACTOR_RESPONSE = one({ enabled: true }, 'req_4b8c22');
export const LOGOUT_RESPONSE = one(null, 'req_4b8c23');
export const SESSIONS_RESPONSE = one(
  [
    {
      id: '3c1d5e7f-9a2b-4c4d-8e6f-7a8b9c0d1e2f',
      current: true,
      created_at: AT,
      expires_at: '2026-02-07T12:00:00.000Z',
      ip: '203.0.113.7',
      user_agent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/140.0',
    },
  ],
  'req_4b8c24',
);

const passkey = {
  id: '5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b',
  name: 'Laptop',
  transports: ['internal', 'hybrid'],
  created_at: AT,
  last_used_at: null,
};
export const PASSKEYS_RESPONSE = one([passkey], 'req_4b8c25');
export const PASSKEY_REGISTERED_RESPONSE = one(passkey, 'req_4b8c26');
const ceremony = { ceremony_id: 'wzHCeBHhZvGg0QHE_BY9vMz-jmi3ySE_', expires_at: '2026-01-31T12:05:00.000Z' };
const challenge = 'USRAOA3ZdZwIE_wZEHpDBg-m3OM3vSffZi_vWaJmdBA';
export const PASSKEY_REGISTER_OPTIONS_RESPONSE = one(
  {
    ...ceremony,
    options: {
      challenge,
      rp: { name: 'Model gateway', id: 'console.example.com' },
      user: { id: 'dXNlci1pZA', name: 'owner@example.com', displayName: 'Ada' },
      pubKeyCredParams: [
        { alg: -8, type: 'public-key' },
        { alg: -7, type: 'public-key' },
        { alg: -257, type: 'public-key' },
      ],
      timeout: 300000,
      attestation: 'none',
      excludeCredentials: [],
      authenticatorSelection: { residentKey: 'required', userVerification: 'required', requireResidentKey: true },
      extensions: { credProps: true },
      hints: [],
    },
  },
  'req_4b8c27',
);
export const PASSKEY_LOGIN_OPTIONS_RESPONSE = one(
  {
    ...ceremony,
    options: { rpId: 'console.example.com', challenge, timeout: 300000, userVerification: 'required' },
  },
  'req_4b8c28',
);

export const PROVIDERS_RESPONSE = one([{ name: 'google', display_name: 'Google' }], 'req_4b8c29');
export const PROVIDER_RETURN_RESPONSE = one({ provider: 'google', result: 'signed_in' }, 'req_4b8c2a');
export const PROVIDER_LINK_RESPONSE = one(
  {
    url: 'https://accounts.example.com/authorize?client_id=…&state=…&code_challenge=…',
    expires_at: '2026-01-31T12:10:00.000Z',
  },
  'req_4b8c2b',
);
export const IDENTITIES_RESPONSE = one(
  [{ provider: 'google', email: 'owner@example.com', linked_at: AT }],
  'req_4b8c2c',
);
