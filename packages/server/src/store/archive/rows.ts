// The rows both SQL engines keep alike (the outbox's, the kept Idempotency-Keys) as archive records; PostgreSQL
// returns BIGINT as text, SQLite as bigint here (safe integers), and Number takes either.
import type { ArchiveRecord } from './format.js';

export type Row = Record<string, unknown>;

const nullable = (value: unknown) => (value === null ? null : Number(value));
/** SQLite keeps times as ISO text, PostgreSQL returns a Date (or text where the query made it so). */
const time = (value: unknown) =>
  value === null ? null : typeof value === 'string' ? value : (value as Date).toISOString();

export function plantRecord(row: Row): ArchiveRecord {
  return {
    kind: 'plant',
    owner: row.owner as string,
    id: String(row.id),
    name: row.name as string,
    tag: row.tag as string | null,
    createdAt: row.created_at as string,
  };
}

export function tokenRecord(row: Row): ArchiveRecord {
  return {
    kind: 'token',
    id: row.id as string,
    subject: row.subject as string,
    scopes: (row.scopes as string).split(',').filter(Boolean),
    secretHash: (row.secret_hash as Buffer).toString('base64'),
    createdAt: time(row.created_at)!,
    expiresAt: time(row.expires_at),
    revokedAt: time(row.revoked_at),
  };
}

export function subscriptionRecord(row: Row): ArchiveRecord {
  return {
    kind: 'subscription',
    id: row.id as string,
    url: row.url as string,
    subject: row.subject as string | null,
    secret: row.secret as string,
    previousSecret: row.previous_secret as string | null,
    previousSecretUntil: nullable(row.previous_secret_until),
    enabled: Boolean(row.enabled),
    disabledReason: row.disabled_reason as string | null,
    createdAt: Number(row.created_at),
    failureStreak: Number(row.failure_streak),
    circuitOpenUntil: nullable(row.circuit_open_until),
    circuitOpens: Number(row.circuit_opens),
  };
}

export function deliveryRecord(row: Row): ArchiveRecord {
  return {
    kind: 'delivery',
    subscriptionId: row.subscription_id as string,
    eventId: row.event_id as string,
    payload: row.payload as string,
    attempts: Number(row.attempts),
    createdAt: Number(row.created_at),
    nextAttemptAt: Number(row.next_attempt_at),
    lastStatus: nullable(row.last_status),
    lastError: row.last_error as string | null,
  };
}

export function keyRecord(row: Row): ArchiveRecord {
  return {
    kind: 'idempotency-key',
    owner: row.owner as string,
    key: row.key as string,
    fingerprint: row.fingerprint as string,
    status: Number(row.status),
    body: row.body as string,
    createdAt: Number(row.created_at),
  };
}
