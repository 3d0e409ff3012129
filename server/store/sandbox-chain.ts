/** The sandbox's simulated chain: transactions paid to deposit addresses, and payouts sent by the service. */
import type { Knex } from 'knex';
import { groupCommit, groupReadRows, recordInsert } from './group-commit.js';

/** A simulated transaction to a deposit address. */
export interface SandboxTransaction {
  txHash: string;
  network: string;
  asset: string;
  address: string;
  memo: string | null;
  fromAddress: string;
  amount: string;
  outputIndex: number;
  createdAt: Date;
}

/** A payout or refund the sandbox sent. */
export interface SandboxPayout {
  idempotencyKey: string;
  txHash: string;
  network: string;
  asset: string;
  address: string;
  memo: string | null;
  amount: string;
  createdAt: Date;
}

const toTransaction = (row: Record<string, unknown>): SandboxTransaction => ({
  txHash: row.tx_hash as string,
  network: row.network as string,
  asset: row.asset as string,
  address: row.address as string,
  memo: row.memo as string | null,
  fromAddress: row.from_address as string,
  amount: row.amount as string,
  outputIndex: row.output_index as number,
  createdAt: row.created_at as Date,
});

/** Who uses a deposit address: the one-time swap it was allocated to, and the permanent route it belongs to. */
export interface AddressOwners {
  swap?: { id: string; partnerId: string; depositMemo: string | null; sourceAsset: string; sourceNetwork: string };
  /** The route's partner and the asset keys (`ASSET/NETWORK`) the address takes on it. */
  route?: { partnerId: string; assetKeys: string[] };
}

// The swap and the route using each address of a group (`l.i` their positions), the route with the asset
// keys it takes on the address's network. The route's side uses route_addresses_address_index (migration
// 0012), the swap's side swaps' deposit_address index.
const ADDRESS_OWNERS = `
  select l.i as "l:i",
         (select jsonb_build_object('id', s.id, 'partnerId', s.partner_id, 'depositMemo', s.deposit_memo,
                                    'sourceAsset', s.source_asset, 'sourceNetwork', s.source_network)
            from swaps s where s.deposit_address = l.address and s.mode = 'standard') as swap,
         (select jsonb_build_object('partnerId', r.partner_id,
                                    'assetKeys', array(select k.asset_key from unnest(r.asset_keys) with ordinality as k(asset_key, n)
                                                        where split_part(k.asset_key, '/', 2) = ra.network order by k.n))
            from route_addresses ra join permanent_routes r on r.id = ra.route_id
           where ra.address = l.address
           limit 1) as route
    from unnest(?::int[], ?::text[]) as l(i, address)`;

/**
 * Returns `read(address)`: the swap and the route using deposit address `address` (a sandbox payment's first
 * read). The addresses asked for while a read runs are read together by the next, an address asked for
 * twice once (group-commit.ts).
 */
export function createAddressOwnerReader(db: Knex): (address: string) => Promise<AddressOwners> {
  const read = groupReadRows(db, ADDRESS_OWNERS, {
    keyOf: (address: string) => address,
    params: (addresses) => [addresses],
    toRecord: ({ swap, route }): AddressOwners => ({
      ...(swap ? { swap: swap as AddressOwners['swap'] } : {}),
      ...(route ? { route: route as AddressOwners['route'] } : {}),
    }),
  });
  return async (address) => (address === '' ? {} : (await read(address))[0]);
}

const TRANSACTION_TYPES: Record<keyof SandboxTransaction, string> = {
  txHash: 'text',
  network: 'text',
  asset: 'text',
  address: 'text',
  memo: 'text',
  fromAddress: 'text',
  amount: 'numeric',
  outputIndex: 'int',
  createdAt: 'timestamptz',
};
const INSERT_TRANSACTIONS = recordInsert<SandboxTransaction>('sandbox_transactions', TRANSACTION_TYPES, '*');

/** Records simulated transactions in one statement; returns them as stored, in the order given. */
export async function insertSandboxTransactions(db: Knex, txs: SandboxTransaction[]): Promise<SandboxTransaction[]> {
  const { rows } = await db.raw(INSERT_TRANSACTIONS.sql, INSERT_TRANSACTIONS.params(txs));
  const stored = new Map((rows as Array<Record<string, unknown>>).map((row) => [row.tx_hash as string, toTransaction(row)]));
  return txs.map((tx) => stored.get(tx.txHash)!);
}

/** Records a simulated transaction (in the caller's transaction, when `db` is one). */
export async function insertSandboxTransaction(db: Knex, tx: SandboxTransaction): Promise<SandboxTransaction> {
  return (await insertSandboxTransactions(db, [tx]))[0];
}

/**
 * Returns `write(tx)`, which records a simulated transaction on its own (autocommit); the transactions
 * recorded while an insert runs are recorded together by the next (group commit).
 */
export function createSandboxTransactionWriter(db: Knex): (tx: SandboxTransaction) => Promise<SandboxTransaction> {
  return groupCommit((txs: SandboxTransaction[]) => insertSandboxTransactions(db, txs));
}

/** The first transaction paid to `address` (with `memo`, where the network uses one) at or after `since`. */
export async function findFirstTransaction(
  db: Knex,
  address: string,
  memo: string | null,
  since: Date,
): Promise<SandboxTransaction | undefined> {
  const query = db('sandbox_transactions').where({ address }).andWhere('created_at', '>=', since).orderBy('created_at').first();
  if (memo !== null) query.andWhere({ memo });
  const row = await query;
  return row ? toTransaction(row) : undefined;
}

/** Every transaction paid to one of `addresses` from `since` up to `until`, oldest first. */
export async function listTransactionsTo(db: Knex, addresses: string[], since: Date, until: Date): Promise<SandboxTransaction[]> {
  if (addresses.length === 0) return [];
  const rows = await db('sandbox_transactions')
    .whereIn('address', addresses)
    .andWhere('created_at', '>=', since)
    .andWhere('created_at', '<=', until)
    .orderBy([{ column: 'created_at' }, { column: 'tx_hash' }]);
  return rows.map(toTransaction);
}

/**
 * Records a payout under `idempotencyKey` unless one exists; returns the payout stored under that key, so a
 * repeated send (a job run twice) returns the first transaction instead of paying again.
 */
export async function insertPayoutOnce(db: Knex, payout: Omit<SandboxPayout, 'createdAt'>): Promise<SandboxPayout> {
  await db('sandbox_payouts')
    .insert({
      idempotency_key: payout.idempotencyKey,
      tx_hash: payout.txHash,
      network: payout.network,
      asset: payout.asset,
      address: payout.address,
      memo: payout.memo,
      amount: payout.amount,
    })
    .onConflict('idempotency_key')
    .ignore();
  const row = await db('sandbox_payouts').where({ idempotency_key: payout.idempotencyKey }).first();
  return {
    idempotencyKey: row.idempotency_key,
    txHash: row.tx_hash,
    network: row.network,
    asset: row.asset,
    address: row.address,
    memo: row.memo,
    amount: row.amount,
    createdAt: row.created_at,
  };
}
