/**
 * SQL handed to us by libraries (pg-boss) in node-postgres form: text with $n placeholders and a values
 * array. It runs on a connection of the knex pool (unnamed, as every statement of the service: PgBouncer in
 * transaction mode cannot keep a named one), or inside a knex transaction.
 */
import type { Knex } from 'knex';

/** Runs `text` on a pooled connection; returns node-postgres's result. */
export async function queryOnPool(db: Knex, text: string, values?: unknown[]): Promise<{ rows: unknown[] }> {
  const connection = await db.client.acquireConnection();
  try {
    return await connection.query({ text, values });
  } catch (err) {
    // A multi-statement text (pg-boss's schema script: BEGIN; ...; COMMIT) that failed half-way leaves its
    // transaction open and aborted; end it before the connection goes back to the pool. Outside a
    // transaction ROLLBACK only warns.
    await connection.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    await db.client.releaseConnection(connection);
  }
}

/** Runs `text` in `trx`: its $n placeholders become knex bindings, and a literal ? in it is escaped. */
export async function queryInTransaction(trx: Knex.Transaction, text: string, values: unknown[] = []): Promise<{ rows: unknown[] }> {
  const bindings: unknown[] = [];
  const sql = text.replace(/\?/g, '\\?').replace(/\$(\d+)/g, (_, n: string) => {
    bindings.push(values[Number(n) - 1] ?? null); // node-postgres sends undefined as NULL; knex refuses it
    return '?';
  });
  const result = await trx.raw(sql, bindings as Knex.RawBinding[]);
  return { rows: result.rows };
}
