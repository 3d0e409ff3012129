/**
 * Three statements of the request path, as PL/pgSQL functions: the nonce claim of every signed request
 * (store/nonces.ts), the markup set (store/markups.ts) and the route create (store/routes.ts). The text of each
 * is what the store sent before; what changes is its planning. Sent as text, each was parsed and planned on
 * every call (unnamed statements: no named prepared statements, which PgBouncer's transaction mode does not
 * carry), and planning was most of its cost. Measured on PostgreSQL 15 here (log_planner_stats): 0.1-0.2 ms
 * for the claim, 0.2-0.3 ms for the markup set, 0.5-2.8 ms for the route create, each more than running it.
 * A function keeps the plans of its statements for the life of the connection, inside the database server,
 * so a call is planned once per connection and nothing is prepared on the connection itself.
 *
 * `#variable_conflict use_column`: a name that is both a column and one of the function's output columns
 * means the column, as in the statements these were.
 *
 * This text is history, kept as it ran (a fresh database replays what an upgraded one went through). The
 * pss_create_routes in force is generated from store/route-challenge.ts and deployed over this one by
 * migrate() (store/statement-functions.ts); change it there, not here.
 */
import type { Knex } from 'knex';

/** `create function <signature>` in PL/pgSQL, returning the rows of `query` as `table (<columns>)`. */
function queryFunction(signature: string, columns: string, query: string): string {
  return `
    create function ${signature}
    returns table (${columns})
    language plpgsql as $$
    #variable_conflict use_column
    begin
      return query ${query};
    end
    $$`;
}

export async function up(knex: Knex): Promise<void> {
  // Records each (key id, nonce) not recorded and unexpired at p_now; returns the pairs it recorded ('n'), and
  // the current version and status of the partners of p_partner_keys ('p').
  await knex.raw(
    queryFunction(
      `pss_claim_nonces(p_key_ids text[], p_nonces text[], p_expires_at timestamptz[], p_now timestamptz, p_partner_keys text[])`,
      `kind text, key_id text, nonce text, updated_at timestamptz, status text`,
      `
      with claimed as (
        insert into request_nonces as r (key_id, nonce, expires_at)
        select * from unnest(p_key_ids, p_nonces, p_expires_at)
        on conflict (key_id, nonce) do update set expires_at = excluded.expires_at
          where r.expires_at <= p_now
        returning r.key_id, r.nonce)
      select 'n'::text, c.key_id, c.nonce, null::timestamptz, null::text from claimed c
      union all
      select 'p'::text, p.key_id, null::text, p.updated_at, p.status from partners p where p.key_id = any(p_partner_keys)`,
    ),
  );

  // Sets the partner's markup to p_percent and returns it as stored: unchanged, the row is only read (its
  // updated_at kept); a first set inserts it.
  await knex.raw(
    queryFunction(
      `pss_set_markup(p_partner_id uuid, p_percent numeric)`,
      `percent numeric, updated_at timestamptz`,
      `
      with changed as (
        update partner_markups m set percent = p_percent, updated_at = now()
         where m.partner_id = p_partner_id and m.percent is distinct from p_percent
        returning m.percent, m.updated_at
      ), inserted as (
        insert into partner_markups as m (partner_id, percent, updated_at)
        select p_partner_id, p_percent, now() where not exists (select from partner_markups x where x.partner_id = p_partner_id)
        on conflict (partner_id) do update set percent = excluded.percent, updated_at = excluded.updated_at
        returning m.percent, m.updated_at
      )
      select c.percent, c.updated_at from changed c
      union all
      select i.percent, i.updated_at from inserted i
      union all
      select m.percent, m.updated_at from partner_markups m
       where m.partner_id = p_partner_id and not exists (select from changed) and not exists (select from inserted)`,
    ),
  );

  // Spends each create's challenge if it may be spent on that route and stores the route, the partner's count
  // of routes kept within p_max_routes; fails as a whole through pss_route_not_created (0009) unless every
  // create stored its route. The reading of each step is beside createRoutes in store/routes.ts.
  await knex.raw(
    queryFunction(
      `pss_create_routes(
      p_i int[], p_challenge_id uuid[], p_id uuid[], p_partner_id uuid[], p_external_user text[], p_destination_asset text[],
      p_destination_network text[], p_destination_address text[], p_label text[], p_fee_percent numeric[],
      p_fee_floor_usd numeric[], p_min_swap_usd numeric[], p_max_auto_swap_usd numeric[], p_next_poll_at timestamptz[],
      p_created_at timestamptz[], p_asset_keys text[], p_message text[], p_max_routes int)`,
      `outcome text, route permanent_routes`,
      `
      with input as (
        select * from unnest(p_i, p_challenge_id, p_id, p_partner_id, p_external_user, p_destination_asset, p_destination_network,
                             p_destination_address, p_label, p_fee_percent, p_fee_floor_usd, p_min_swap_usd, p_max_auto_swap_usd,
                             p_next_poll_at, p_created_at, p_asset_keys, p_message)
          as t(i, challenge_id, id, partner_id, external_user, destination_asset, destination_network, destination_address, label,
               fee_percent, fee_floor_usd, min_swap_usd, max_auto_swap_usd, next_poll_at, created_at, asset_keys, message)
      ), spent as (
        update route_challenges c set used_at = input.created_at
          from input
         where c.id = input.challenge_id
           and c.used_at is null and c.expires_at > input.created_at
           and c.partner_id = input.partner_id and c.external_user = input.external_user
           and c.destination_asset = input.destination_asset and c.destination_network = input.destination_network
           and c.destination_address = input.destination_address and c.text = input.message
        returning input.i, c.label
      ), inserted as (
        insert into permanent_routes (id, partner_id, external_user, destination_asset, destination_network, destination_address,
                                      label, fee_percent, markup_percent, fee_floor_usd, min_swap_usd, max_auto_swap_usd,
                                      next_poll_at, active_at, asset_keys, created_at, updated_at)
        select n.id, n.partner_id, n.external_user, n.destination_asset, n.destination_network, n.destination_address,
               coalesce(n.label, s.label), n.fee_percent,
               coalesce((select m.percent from partner_markups m where m.partner_id = n.partner_id), 0), n.fee_floor_usd,
               n.min_swap_usd, n.max_auto_swap_usd, n.next_poll_at, n.created_at, string_to_array(n.asset_keys, ','),
               n.created_at, n.created_at
          from input n join spent s on s.i = n.i
        on conflict (partner_id, external_user, destination_asset, destination_address) do nothing
        returning *
      ), counted as (
        insert into partner_route_counts as c (partner_id, routes)
        select r.partner_id, count(*) from inserted r group by r.partner_id having count(*) <= p_max_routes
        on conflict (partner_id) do update set routes = c.routes + excluded.routes where c.routes + excluded.routes <= p_max_routes
        returning c.partner_id
      )
      select case when (select count(*) from inserted) = cardinality(p_i)
                   and (select count(*) from counted) = (select count(distinct r.partner_id) from inserted r) then 'created'
                  when (select count(*) from spent) < cardinality(p_i) then pss_route_not_created('challenge_refused')
                  when (select count(*) from inserted) < cardinality(p_i) then pss_route_not_created('route_exists')
                  else pss_route_not_created('route_limit_reached') end,
             case when i.id is null then null else row(i.*)::permanent_routes end
        from (select) as one left join inserted i on true`,
    ),
  );
}
