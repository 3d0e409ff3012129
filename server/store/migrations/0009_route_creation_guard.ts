/**
 * The guard of POST /permanent-routes' single statement (store/routes.ts createRouteWriter), as 0008 is for
 * POST /swaps: a create that did not store its route (the challenge was spent meanwhile, or the partner has a
 * route for this user and target) fails as a whole with SQLSTATE PS002 and the reason as the message, so
 * neither the challenge's spending nor the queued allocation job stays.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create function pss_route_not_created(reason text) returns text language plpgsql as $$
    begin
      raise exception using errcode = 'PS002', message = reason;
    end
    $$`);
}
