/**
 * What the database has promised of a hot wallet's asset (services/liquidity.ts, docs/treasury.md): the
 * asset's lock, the payouts its balance may not show yet, and the live reservations of quotes and swaps.
 */
import type { Knex } from 'knex';

/** The asset's lock: held by `trx` until it ends, so two promises of the asset are checked one after the other. */
export async function lockLiquidity(trx: Knex.Transaction, network: string, asset: string, at: Date): Promise<void> {
  // An upsert takes the row's lock as `select … for update` would, and makes the row the first time.
  await trx.raw(
    `insert into liquidity_locks (network, asset, locked_at) values (?, ?, ?)
       on conflict (network, asset) do update set locked_at = excluded.locked_at`,
    [network, asset, at],
  );
}

/** What is promised of one asset, in units of it (decimal strings). */
export interface Commitments {
  /** Payouts and refunds that may still leave the hot wallet, or left it since the balance was read. */
  payouts: string;
  /** Live reservations of every partner's quotes and swaps. */
  reserved: string;
  /** The part of `reserved` that is `partnerId`'s. */
  partnerReserved: string;
}

/** What a commitments read is about. */
export interface CommitmentsQuery {
  network: string;
  asset: string;
  at: Date;
  /** The tip height the balance was read at: a payout mined above it may not show in the balance yet. */
  balanceHeight: number;
  partnerId?: string;
  /** A swap whose own reservation is not counted (its payout is being committed). */
  exceptSwapId?: string;
}

// A reservation lives while its quote is unused and unexpired; carried to its swap, while the swap waits for
// its deposit (until quote_expires_at), confirms it (until its confirmation deadline, unless it is late) or
// exchanges, and has no payout committed. A payout counts until it provably paid nothing (failed, reverted,
// cancelled) or a balance read at or above its block shows it: held for review it may still be paid.
const COMMITMENTS = `
  with reservations as (
    select q.partner_id, q.reserved_amount as amount from quotes q
     where q.destination_network = :network and q.destination_asset = :asset and q.reserved_amount is not null
       and q.used_at is null and q.expires_at > :at
    union all
    select s.partner_id, q.reserved_amount from swaps s join quotes q on q.id = s.quote_id
     where s.destination_network = :network and s.destination_asset = :asset and q.reserved_amount is not null
       and s.status in ('waiting', 'confirming', 'exchanging') and s.id is distinct from cast(:except as uuid)
       and (s.status = 'exchanging'
            or (s.status = 'waiting' and s.quote_expires_at > :at)
            or (s.status = 'confirming' and not s.late_deposit and coalesce(s.confirmation_deadline, s.quote_expires_at) > :at))
       and not exists (select from payouts p where p.swap_id = s.id and p.purpose = 'payout')
  )
  select (select coalesce(sum(amount), 0) from payouts
           where network = :network and asset = :asset and status not in ('failed', 'reverted', 'cancelled')
             and (block_height is null or block_height > :height))::text as payouts,
         (select coalesce(sum(amount), 0) from reservations)::text as reserved,
         (select coalesce(sum(amount), 0) from reservations where partner_id = cast(:partner as uuid))::text as "partnerReserved"`;

/** Reads what is promised of `query.asset`; in the transaction that holds its lock, it stays true until it ends. */
export async function readCommitments(db: Knex | Knex.Transaction, query: CommitmentsQuery): Promise<Commitments> {
  const { rows } = await db.raw(COMMITMENTS, {
    network: query.network,
    asset: query.asset,
    at: query.at,
    height: query.balanceHeight,
    partner: query.partnerId ?? null,
    except: query.exceptSwapId ?? null,
  });
  return rows[0] as Commitments;
}
