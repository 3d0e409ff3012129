/**
 * The expect-deposit window (POST /permanent-routes/{id}/expect-deposit, store/routes.ts openExpectWindow) as
 * a PL/pgSQL function, like the statements of 0022 and 0025 and for the same reason: sent as text, the update
 * was parsed and planned on every call, and its plan is kept for the life of the connection here. It is the
 * update the store sent, with its commit not waiting for the write-ahead log to reach the disk (a hint for
 * polling; see openExpectWindow): set_config(..., true) lasts until the end of the calling transaction.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Opens (or extends) the window of the partner's route until p_until and makes the route due at p_at;
  // false when the partner has no such route.
  await knex.raw(`
    create function pss_open_expect_window(p_partner_id uuid, p_id uuid, p_until timestamptz, p_at timestamptz)
    returns boolean
    language plpgsql as $$
    begin
      perform set_config('synchronous_commit', 'off', true);
      update permanent_routes set expect_deposit_until = p_until, next_poll_at = p_at, active_at = p_at, updated_at = p_at
       where id = p_id and partner_id = p_partner_id;
      return found;
    end
    $$`);
}
