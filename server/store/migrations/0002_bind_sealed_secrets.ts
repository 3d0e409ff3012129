/**
 * Binds every partner secret to its key id: values sealed in the first format (no associated data) are
 * opened and sealed again for `partner-secret:<key id>`, in this migration's transaction, once. A value
 * that does not open under the current SECRETS_KEY is left as it is: it could not authenticate anyway, the
 * server names it at start-up, and `npm run partners -- rotate-secret` replaces it.
 */
import type { Knex } from 'knex';
import type { MigrationContext } from './index.js';
import { isUnboundSealed, partnerSecretOwner } from '../secret-box.js';

export async function up(knex: Knex, context: MigrationContext): Promise<void> {
  const rows: Array<{ id: string; key_id: string; secret_sealed: string }> = await knex('partners')
    .select('id', 'key_id', 'secret_sealed')
    .whereLike('secret_sealed', 'v1.%');
  if (rows.length === 0) return;
  const box = context.secretBox;
  if (!box) throw new Error('Migration 0002 re-seals partner secrets and needs the SECRETS_KEY; run it through the server or make migrate');
  for (const row of rows) {
    if (!isUnboundSealed(row.secret_sealed)) continue;
    let plaintext: string;
    try {
      plaintext = box.openUnbound(row.secret_sealed);
    } catch {
      continue;
    }
    await knex('partners')
      .where({ id: row.id })
      .update({ secret_sealed: box.seal(plaintext, partnerSecretOwner(row.key_id)) });
  }
}
