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
 * The route create is not written out here: its text is generated (store/statement-functions.ts) from the one
 * source of the challenge rule, store/route-challenge.ts, and kept current by migrate() after the migrations.
 */
import type { Knex } from 'knex';
import { CREATE_ROUTES_FUNCTION, deployStatements } from '../statement-functions.js';

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

  // The route create, as generated from the challenge rule (store/route-challenge.ts) by
  // store/statement-functions.ts: this migration creates it with its marker, and migrate() replaces it whenever
  // the generated text changes, so the rule is not copied here and a change of it needs no new migration.
  // PL/pgSQL resolves the names of a function's statements when it is first called, not when it is created, so
  // the text of a later version creates here too.
  for (const statement of deployStatements(CREATE_ROUTES_FUNCTION)) await knex.raw(statement);
}
