// The tokens table as both stores read it back, and its conversion to a TokenRecord. SQLite returns the dates as
// ISO text, PostgreSQL as Date objects; `new Date` takes either.
import type { Scope } from '@plant-store/contract';
import type { TokenRecord } from './store.js';

export interface TokenRow {
  id: string;
  subject: string;
  scopes: string;
  secret_hash: Buffer;
  created_at: string | Date;
  expires_at: string | Date | null;
  revoked_at: string | Date | null;
}

export function toTokenRecord(row: TokenRow): TokenRecord {
  return {
    id: row.id,
    subject: row.subject,
    scopes: row.scopes.split(',').filter(Boolean) as Scope[],
    createdAt: new Date(row.created_at),
    expiresAt: row.expires_at === null ? null : new Date(row.expires_at),
    revokedAt: row.revoked_at === null ? null : new Date(row.revoked_at),
  };
}
