/**
 * Statement functions whose text is generated from code, and their deployment. pss_create_routes, the route
 * create (store/routes.ts createRoutes), spends a challenge where the challenge rule holds; the rule is
 * store/route-challenge.ts, so the function's text is generated from it here, not copied into a migration.
 *
 * Migration 0022 created the function once; after the migrations, deployStatementFunctions (run by migrate()
 * in store/database.ts) replaces it whenever its generated text differs from the deployed one, so a change of
 * the rule (or of the statement) needs no new migration. Which text is deployed is recorded in the function's
 * comment: `pss:<version>:<sha256 of the generated text>`. The version goes up with every change of the text
 * (a unit test pins the pair), and an instance never replaces a deployment of a higher version: during a
 * rollout, an instance of the older release restarting leaves the newer rule in place. `create or replace` cannot change a function's parameters or
 * output columns, and a new parameter list would make a second function beside the old: such a change is
 * still a migration that drops the old function.
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { CHALLENGE_SPENDABLE } from './route-challenge.js';

/** A PL/pgSQL function that returns the rows of one query (see migration 0022 for why these are functions). */
export interface StatementFunction {
  name: string;
  /** Raised with every change of its generated text (test/unit/store/route-challenge.test.ts pins it). */
  version: number;
  /** Its parameters in order, each as [name, type]. */
  parameters: ReadonlyArray<readonly [name: string, type: string]>;
  /** Its output columns, as `returns table (...)` lists them. */
  columns: string;
  /** The query whose rows it returns. */
  query: string;
}

/**
 * The route create: spends each create's challenge if it may be spent on that route (CHALLENGE_SPENDABLE) and
 * stores the route, the partner's count of routes kept within p_max_routes; fails as a whole through
 * pss_route_not_created (migration 0009) unless every create stored its route. The reading of each step is
 * beside createRoutes in store/routes.ts.
 */
export const CREATE_ROUTES_FUNCTION: StatementFunction = Object.freeze<StatementFunction>({
  name: 'pss_create_routes',
  version: 1,
  parameters: [
    ['p_i', 'int[]'],
    ['p_challenge_id', 'uuid[]'],
    ['p_id', 'uuid[]'],
    ['p_partner_id', 'uuid[]'],
    ['p_external_user', 'text[]'],
    ['p_destination_asset', 'text[]'],
    ['p_destination_network', 'text[]'],
    ['p_destination_address', 'text[]'],
    ['p_label', 'text[]'],
    ['p_fee_percent', 'numeric[]'],
    ['p_fee_floor_usd', 'numeric[]'],
    ['p_min_swap_usd', 'numeric[]'],
    ['p_max_auto_swap_usd', 'numeric[]'],
    ['p_next_poll_at', 'timestamptz[]'],
    ['p_created_at', 'timestamptz[]'],
    ['p_asset_keys', 'text[]'],
    ['p_message', 'text[]'],
    ['p_max_routes', 'int'],
  ],
  columns: 'outcome text, route permanent_routes',
  query: `
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
           and ${CHALLENGE_SPENDABLE}
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
});

/** The functions deployStatementFunctions keeps as generated. */
export const STATEMENT_FUNCTIONS: readonly StatementFunction[] = Object.freeze([CREATE_ROUTES_FUNCTION]);

/**
 * The `create or replace function` statement of `fn`. `#variable_conflict use_column`: a name that is both a
 * column and one of the function's output columns means the column, as in the statement it was.
 */
export function functionText(fn: StatementFunction): string {
  const parameters = fn.parameters.map(([name, type]) => `${name} ${type}`).join(', ');
  return `
    create or replace function ${fn.name}(${parameters})
    returns table (${fn.columns})
    language plpgsql as $$
    #variable_conflict use_column
    begin
      return query ${fn.query};
    end
    $$`;
}

/** `name(type, ...)`: how `comment on function` and to_regprocedure name `fn`. */
export function functionSignature(fn: StatementFunction): string {
  return `${fn.name}(${fn.parameters.map(([, type]) => type).join(', ')})`;
}

/** The comment that says `fn` is deployed as generated: `pss:`, its version and the sha256 (hex) of its text. */
export function functionMarker(fn: StatementFunction): string {
  return `pss:${fn.version}:${createHash('sha256').update(functionText(fn)).digest('hex')}`;
}

// Whether the function deployed with `marker` (none: created by a migration, or changed by hand) is to be
// replaced by `fn`: an older version, or the same version with another text. A newer version is left.
function isStale(fn: StatementFunction, marker: string | null): boolean {
  const deployed = /^pss:(\d+):([0-9a-f]{64})$/.exec(marker ?? '');
  if (!deployed) return true;
  const version = Number(deployed[1]);
  return version < fn.version || (version === fn.version && marker !== functionMarker(fn));
}

/** The statements that deploy `fn` as generated: its function, then its marker (hex: nothing to quote). */
export function deployStatements(fn: StatementFunction): string[] {
  return [functionText(fn), `comment on function ${functionSignature(fn)} is '${functionMarker(fn)}'`];
}

// The advisory lock of a deployment. PostgreSQL fails a CREATE OR REPLACE of a function that another
// transaction is replacing at the same moment ("tuple concurrently updated"), so instances that start together
// replace it one after the other; the later ones find it current and leave it.
const DEPLOY_LOCK = 'pss:statement-functions';

/**
 * Replaces each of `functions` (default STATEMENT_FUNCTIONS) whose deployed marker is not its generated one,
 * in one transaction holding an advisory lock; resolves with the names it replaced. A current deployment
 * costs one read per function and takes no lock.
 */
export async function deployStatementFunctions(db: Knex, functions: readonly StatementFunction[] = STATEMENT_FUNCTIONS): Promise<string[]> {
  if ((await staleFunctions(db, functions)).length === 0) return [];
  return db.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [DEPLOY_LOCK]);
    // Read again under the lock: an instance that held it before may have deployed them meanwhile.
    const stale = await staleFunctions(trx, functions);
    for (const fn of stale) {
      for (const statement of deployStatements(fn)) await trx.raw(statement);
    }
    return stale.map((fn) => fn.name);
  });
}

async function staleFunctions(db: Knex, functions: readonly StatementFunction[]): Promise<StatementFunction[]> {
  const stale: StatementFunction[] = [];
  for (const fn of functions) {
    const { rows } = await db.raw(`select obj_description(to_regprocedure(?), 'pg_proc') as marker`, [functionSignature(fn)]);
    if (isStale(fn, (rows as Array<{ marker: string | null }>)[0].marker)) stale.push(fn);
  }
  return stale;
}
