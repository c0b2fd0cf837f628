// Per-principal data versions and Idempotency-Key answers on SQLite. Every write to an owner's plants moves the owner's
// version in its own transaction (the ETag of GET /plants is derived from it); a create with a key keeps its answer
// in the same transaction (a savepoint inside the group commit's batch), so the plant and its answer commit together.
// The write that keeps an owner's key beyond MAX_IDEMPOTENCY_KEYS_PER_PRINCIPAL forgets the owner's oldest keys in it.
import { MAX_IDEMPOTENCY_KEYS_PER_PRINCIPAL } from '@plant-store/core';
import type Database from 'better-sqlite3';
import { IDEMPOTENCY_TTL_MS, type IdempotencyClaim, type IdempotencyRepository, type KeptAnswer } from '../store.js';

export interface SqliteIdempotency {
  /**
   * Moves the owner's version (when `changed`) and its count of kept keys by `keys`; inside a write. Returns the
   * owner's version after it.
   */
  bump(owner: string, changed: boolean, keys: number): string;
  /**
   * Inside a write: the key's live answer when it has one (nothing changes), else runs `create` and keeps its answer
   * with the key, in one savepoint (truthy: it created). Returns what `create` returned, or the kept answer.
   */
  createOnce<Created>(owner: string, claim: IdempotencyClaim, create: () => Created): Created | KeptAnswer;
  readonly repository: IdempotencyRepository;
}

interface KeyRow {
  fingerprint: string;
  status: number;
  body: string;
  created_at: number;
}

export function createSqliteIdempotency(
  db: Database.Database,
  write: <T>(work: () => T) => Promise<T>,
  statement: (sql: string) => Database.Statement,
): SqliteIdempotency {
  const bump = (owner: string, changed: boolean, keys: number): string =>
    String(
      statement(
        `INSERT INTO owner_versions (owner, version, idempotency_keys) VALUES (?, ?, ?)
         ON CONFLICT (owner) DO UPDATE SET version = version + excluded.version,
           idempotency_keys = max(0, idempotency_keys + excluded.idempotency_keys)
         RETURNING version`,
      )
        .pluck()
        .safeIntegers(true)
        .get(owner, changed ? 1 : 0, keys),
    );
  /**
   * Counts a new key of the owner's; beyond the bound, forgets the owner's oldest keys but `key` (an index range on
   * (owner, created_at)). Under the bound this is the one statement that counted the key before.
   */
  const countNewKey = (owner: string, key: string) => {
    const keys = statement(
      `INSERT INTO owner_versions (owner, version, idempotency_keys) VALUES (?, 0, 1)
       ON CONFLICT (owner) DO UPDATE SET idempotency_keys = idempotency_keys + 1
       RETURNING idempotency_keys`,
    )
      .pluck()
      .get(owner) as number;
    if (keys <= MAX_IDEMPOTENCY_KEYS_PER_PRINCIPAL) return;
    const forgotten = statement(
      `DELETE FROM idempotency_keys WHERE (owner, key) IN
         (SELECT owner, key FROM idempotency_keys WHERE owner = ? AND key <> ? ORDER BY created_at LIMIT ?)`,
    ).run(owner, key, keys - MAX_IDEMPOTENCY_KEYS_PER_PRINCIPAL).changes;
    bump(owner, false, -forgotten);
  };
  const find = (owner: string, key: string) =>
    statement('SELECT fingerprint, status, body, created_at FROM idempotency_keys WHERE owner = ? AND key = ?').get(
      owner,
      key,
    ) as KeyRow | undefined;
  const keep = (owner: string, key: string, answer: KeptAnswer, now: number) => {
    statement(
      `INSERT INTO idempotency_keys (owner, key, fingerprint, status, body, created_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (owner, key) DO UPDATE SET fingerprint = excluded.fingerprint, status = excluded.status,
         body = excluded.body, created_at = excluded.created_at`,
    ).run(owner, key, answer.fingerprint, answer.status, answer.body, now);
  };
  /** The live answer of the key, if any; an expired one counts as none (and is overwritten by the next answer). */
  const live = (owner: string, key: string, now: number): { answer: KeptAnswer | undefined; expired: boolean } => {
    const row = find(owner, key);
    if (row === undefined) return { answer: undefined, expired: false };
    if (row.created_at <= now - IDEMPOTENCY_TTL_MS) return { answer: undefined, expired: true };
    return { answer: { fingerprint: row.fingerprint, status: row.status, body: row.body }, expired: false };
  };

  const createOnce = db.transaction((owner: string, claim: IdempotencyClaim, create: () => unknown): unknown => {
    const { answer, expired } = live(owner, claim.key, claim.now);
    if (answer) return answer;
    const created = create();
    const status = created ? 200 : 409;
    keep(
      owner,
      claim.key,
      { fingerprint: claim.fingerprint, status, body: created ? claim.created : claim.conflict },
      claim.now,
    );
    // `create` moved the version when it created; the count of kept keys grows unless an expired one was reused.
    if (!expired) countNewKey(owner, claim.key);
    return created;
  });

  const repository: IdempotencyRepository = {
    async remember(owner, key, answer, now) {
      return write(() => {
        const found = live(owner, key, now);
        if (found.answer) return found.answer;
        keep(owner, key, answer, now);
        if (!found.expired) countNewKey(owner, key);
        return undefined;
      });
    },
    async sweep(before, maxPerOwner, limit) {
      const expired = statement(
        `DELETE FROM idempotency_keys WHERE (owner, key) IN
           (SELECT owner, key FROM idempotency_keys WHERE created_at < ? ORDER BY created_at LIMIT ?)
         RETURNING owner`,
      );
      const crowded = statement(
        'SELECT owner, idempotency_keys AS keys FROM owner_versions WHERE idempotency_keys > ? ORDER BY idempotency_keys DESC LIMIT 16',
      );
      const oldest = statement(
        `DELETE FROM idempotency_keys WHERE (owner, key) IN
           (SELECT owner, key FROM idempotency_keys WHERE owner = ? ORDER BY created_at LIMIT ?)`,
      );
      return write(
        db.transaction(() => {
          const removed = new Map<string, number>();
          for (const { owner } of expired.all(before, limit) as { owner: string }[]) {
            removed.set(owner, (removed.get(owner) ?? 0) + 1);
          }
          for (const [owner, count] of removed) bump(owner, false, -count);
          let deleted = [...removed.values()].reduce((sum, count) => sum + count, 0);
          for (const { owner, keys } of crowded.all(maxPerOwner) as { owner: string; keys: number }[]) {
            const excess = Math.min(keys - maxPerOwner, limit - deleted);
            if (excess <= 0) break;
            const count = oldest.run(owner, excess).changes;
            bump(owner, false, -count);
            deleted += count;
          }
          return deleted;
        }),
      );
    },
  };

  return {
    bump,
    // better-sqlite3's transaction types drop the type parameter: the transaction returns what create did, or the key's.
    createOnce: <Created>(owner: string, claim: IdempotencyClaim, create: () => Created) =>
      createOnce(owner, claim, create) as Created | KeptAnswer,
    repository,
  };
}
