import type { ColumnType, Generated } from 'kysely';

// The console's account-security tables (shared/console/), joined into Database in schema.ts.
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;

export interface ConsoleTables {
  verification_codes: VerificationCodesTable;
  user_identities: UserIdentitiesTable;
  passkeys: PasskeysTable;
}

/** An e-mailed one-time code: see migrations/0017_verification_codes.sql. */
export interface VerificationCodesTable {
  id: Generated<string>;
  user_id: string;
  action: string;
  code_hash: Buffer;
  attempts: ColumnType<number, number | undefined, number>;
  created_at: ColumnType<Date, Date, never>;
  expires_at: ColumnType<Date, Date, never>;
  used_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** A linked OpenID Connect account: see migrations/0018_account_security.sql. */
export interface UserIdentitiesTable {
  id: Generated<string>;
  user_id: string;
  provider: string;
  subject: string;
  email: string | null;
  created_at: CreatedAt;
}

/** A WebAuthn credential: see migrations/0018_account_security.sql. */
export interface PasskeysTable {
  id: Generated<string>;
  user_id: string;
  /** base64url, as the browser reports it. */
  credential_id: string;
  public_key: Buffer;
  counter: ColumnType<number, number | undefined, number>;
  transports: ColumnType<string[], string[] | undefined, string[]>;
  name: ColumnType<string, string | undefined, string>;
  created_at: CreatedAt;
  last_used_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}
