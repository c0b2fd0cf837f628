// The bound on the Idempotency-Keys one owner keeps, enforced by the very statement that keeps a key: SQL for the
// statements that write keys (the batched creates of outbox.ts, a kept 400 in postgres-store.ts), so an owner never
// holds more than MAX_IDEMPOTENCY_KEYS_PER_PRINCIPAL keys after a write, whatever the rate of writes (the periodic
// sweep is not what holds it).
import { MAX_IDEMPOTENCY_KEYS_PER_PRINCIPAL } from '@plant-store/core';

/**
 * CTEs to follow a `claimed` CTE (the rows it inserted or overwrote, RETURNING owner, key and `reused`): `trimmed`
 * deletes each over-bound owner's oldest keys but those just written, one row per key. Writers racing at the bound may
 * leave an owner a key over it until its next write; the count stays exact.
 */
export const TRIM_OLDEST_KEYS = `over AS (
    SELECT c.owner, array_agg(c.key) AS written,
           max(coalesce(v.idempotency_keys, 0)) + count(*) FILTER (WHERE NOT c.reused)
             - ${MAX_IDEMPOTENCY_KEYS_PER_PRINCIPAL} AS excess
    FROM claimed c LEFT JOIN owner_versions v ON v.owner = c.owner
    GROUP BY c.owner
    HAVING max(coalesce(v.idempotency_keys, 0)) + count(*) FILTER (WHERE NOT c.reused)
             > ${MAX_IDEMPOTENCY_KEYS_PER_PRINCIPAL}
  ), oldest AS (
    SELECT i.ctid AS row_id, i.created_at FROM over CROSS JOIN LATERAL (
        SELECT ctid, created_at FROM idempotency_keys
        WHERE owner = over.owner AND key <> ALL (over.written)
        ORDER BY created_at LIMIT over.excess
      ) AS i
  ), trimmed AS (
    -- By row address (a TID scan), never a scan of the table. The time too: a key another writer has just
    -- overwritten (an expired one, claimed again, now the newest) is left alone.
    DELETE FROM idempotency_keys
    WHERE ctid = ANY (ARRAY(SELECT row_id FROM oldest)) AND created_at <= (SELECT max(created_at) FROM oldest)
    RETURNING owner
  )`;
