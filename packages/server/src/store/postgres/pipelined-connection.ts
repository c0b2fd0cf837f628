// One pool connection that several statements share at once: each is written as soon as it is asked for, behind those
// still unanswered (pg's pipeline mode), where the pool would hold it until the one before it came back. The
// connection is checked out while a statement is unanswered and given back when none is, so the pool still opens it
// on demand, closes it when idle and replaces it after an error.
import type pg from 'pg';

interface Checkout {
  client: Promise<pg.PoolClient>;
  unanswered: number;
  /** The error that broke the connection: it is given back with it, so the pool closes it. */
  broken?: Error;
}

/** Runs statements on `pool`'s one connection, pipelined; the pool's clients must be made with `pipeline: true`. */
export function pipelinedConnection(pool: pg.Pool) {
  let current: Checkout | undefined;
  const giveBack = (checkout: Checkout, client: pg.PoolClient | undefined) => {
    if (--checkout.unanswered > 0 || !client) return;
    if (current === checkout) current = undefined;
    client.release(checkout.broken);
  };
  return async function query<Row extends pg.QueryResultRow>(text: string, values: unknown[]) {
    current ??= { client: pool.connect(), unanswered: 0 };
    const checkout = current;
    checkout.unanswered++;
    let client: pg.PoolClient | undefined;
    try {
      client = await checkout.client;
      return await client.query<Row>(text, values);
    } catch (error) {
      // A failed statement may have left the connection unusable (a timeout destroys it): the next goes on a new one.
      if (current === checkout) current = undefined;
      checkout.broken ??= error instanceof Error ? error : new Error(String(error));
      throw error;
    } finally {
      giveBack(checkout, client);
    }
  };
}
