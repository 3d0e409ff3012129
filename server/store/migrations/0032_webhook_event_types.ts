/**
 * Webhook event filters (PUT /partner/webhook `eventTypes`): `partner_webhooks.event_types` holds the event
 * types a partner chose (null: every type, as before). pss_set_webhook (0025) takes the filter too, so a set
 * is still one planned statement: its return type changes, so it is dropped and made again.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table partner_webhooks add column event_types text[]');
  await knex.raw('drop function pss_set_webhook(uuid, text, boolean)');
  // Sets url, enabled and (with p_set_types) event_types of the partner's webhook when any differs; returns
  // the row as the update left it, or as it was when nothing differed; no row when the partner has none.
  await knex.raw(`
    create function pss_set_webhook(p_partner_id uuid, p_url text, p_enabled boolean, p_set_types boolean, p_event_types text[])
    returns table (partner_id uuid, url text, enabled boolean, secret_sealed text, secret_hint text, event_types text[],
                   updated_at timestamptz)
    language plpgsql as $$
    #variable_conflict use_column
    begin
      return query
      with changed as (
        update partner_webhooks w
           set url = p_url, enabled = p_enabled,
               event_types = case when p_set_types then p_event_types else w.event_types end, updated_at = now()
         where w.partner_id = p_partner_id
           and (w.url, w.enabled, case when p_set_types then p_event_types else w.event_types end)
               is distinct from (p_url, p_enabled, w.event_types)
        returning w.partner_id, w.url, w.enabled, w.secret_sealed, w.secret_hint, w.event_types, w.updated_at
      )
      select c.partner_id, c.url, c.enabled, c.secret_sealed, c.secret_hint, c.event_types, c.updated_at from changed c
      union all
      select w.partner_id, w.url, w.enabled, w.secret_sealed, w.secret_hint, w.event_types, w.updated_at from partner_webhooks w
       where w.partner_id = p_partner_id and not exists (select from changed);
    end
    $$`);
}
