/**
 * Cold storage (docs/treasury.md "Cold storage" and "Hot-wallet rules"): when a hot wallet holds more
 * of an asset than HOT_WALLET_MAX, the surplus, down to halfway between HOT_WALLET_MIN and HOT_WALLET_MAX, goes
 * to its network's `<NET>_COLD_ADDRESS` as a payout of the outbox with purpose `cold`, which pays for no swap.
 *
 * Each look, per asset with a rule and a cold address:
 * 1. cold transfers a block holds as deep as the network's payout finality are marked confirmed (no swap step
 *    follows them);
 * 2. under the asset's liquidity lock (the one quotes and payout intents take), the surplus is read, and
 *    while no cold transfer of the asset is in play (on its way, or held and not released by an operator) one
 *    intent is committed for it, with its send job, in that transaction. Its amount is fixed there, and never
 *    takes what a payout, a reservation or the fee reserve needs. Several instances look at once: the lock
 *    and the check under it make one transfer.
 * The payout sender then signs it, stores the version before broadcasting it, bumps and follows it as any
 * payout (jobs/payout-sender.ts). Held, it stops the next transfer of its asset, and `ops cold list` and the
 * ColdTransferHeld alert name it. No node is called here: the balance is the network board's last read.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { findAsset, type Catalog, type CatalogAsset } from '../domain/catalog.js';
import { Money } from '../domain/money.js';
import type { Liquidity } from '../services/liquidity.js';
import { transaction } from '../store/after-commit.js';
import { confirmColdTransfers, findOpenColdTransfer } from '../store/cold-transfers.js';
import { insertPayoutIntents } from '../store/payouts.js';

/** One asset whose surplus goes to cold storage. */
export interface ColdRule {
  asset: CatalogAsset;
  /** `<NET>_COLD_ADDRESS`. */
  address: string;
}

/**
 * The assets of HOT_WALLET_MAX whose network has a `<NET>_COLD_ADDRESS` (production only), and the keys whose
 * network has none (their surplus is only a metric and an alert).
 */
export function coldRulesOf(
  config: Pick<Config, 'production' | 'hotWalletMax'>,
  catalog: Catalog,
): { rules: ColdRule[]; withoutAddress: string[] } {
  const rules: ColdRule[] = [];
  const withoutAddress: string[] = [];
  for (const key of Object.keys(config.hotWalletMax)) {
    const [symbol, network] = key.split('/');
    const served = config.production?.networks.find((n) => n.network === network);
    const asset = findAsset(catalog, symbol!, network!);
    if (!served || !asset) continue; // refused at start (main.ts): HOT_WALLET_MAX names assets the service pays
    if (served.coldAddress === undefined) withoutAddress.push(key);
    else rules.push({ asset, address: served.coldAddress });
  }
  return { rules, withoutAddress };
}

/** What the cold-storage looks need. */
export interface ColdTransferDeps {
  knex: Knex;
  liquidity: Liquidity;
  rules: readonly ColdRule[];
  /** Queues the send of payouts `ids` in `trx` (the job engine's outbox jobs). */
  sendPayouts(ids: string[], trx: Knex.Transaction): Promise<void>;
  /** Confirmations a payout on `network` needs to be final. */
  confirmations(network: string): number;
  /** How often to look. */
  intervalMs: number;
  now: () => Date;
  logger: Logger;
}

/** The idempotency key of the cold transfer of `asset` committed at `at`. */
export const coldTransferKey = (asset: CatalogAsset, at: Date) => `cold:${asset.network}:${asset.symbol}:${at.toISOString()}`;

/** Starts the looks; `look()` runs one now (tests), `stop()` ends them. */
export function startColdTransfers(deps: ColdTransferDeps): { look(): Promise<string[]>; stop(): Promise<void> } {
  const networks = [...new Set(deps.rules.map((r) => r.asset.network))];

  // Commits the cold transfer of `rule`'s asset when its surplus calls for one; its payout id, or null.
  const transfer = (rule: ColdRule, at: Date) =>
    transaction(deps.knex, async (trx) => {
      const amount = await deps.liquidity.coldSurplus(trx, rule.asset, at);
      // Not worth a transaction below the asset's dust floor (nor buildable, often).
      if (!amount.greaterThan(new Money(rule.asset.dustFloor))) return null;
      if (await findOpenColdTransfer(trx, rule.asset.network, rule.asset.symbol)) return null;
      const [id] = await insertPayoutIntents(
        trx,
        [
          {
            idempotencyKey: coldTransferKey(rule.asset, at),
            swapId: null,
            purpose: 'cold',
            network: rule.asset.network,
            asset: rule.asset.symbol,
            address: rule.address,
            memo: null,
            amount: amount.toFixed(),
          },
        ],
        at,
      );
      await deps.sendPayouts([id!], trx);
      deps.logger.info(
        { payoutId: id, network: rule.asset.network, asset: rule.asset.symbol, amount: amount.toFixed(), address: rule.address },
        'cold transfer committed: the hot wallet holds more than HOT_WALLET_MAX',
      );
      return id!;
    });

  async function look(): Promise<string[]> {
    for (const network of networks) await confirmColdTransfers(deps.knex, network, deps.confirmations(network), deps.now());
    const made: string[] = [];
    for (const rule of deps.rules) {
      const id = await transfer(rule, deps.now());
      if (id) made.push(id);
    }
    return made;
  }

  let running: Promise<unknown> | undefined;
  const timer =
    deps.rules.length === 0
      ? undefined
      : setInterval(() => {
          if (running) return;
          running = look()
            .catch((err: unknown) => deps.logger.warn({ err }, 'cold transfer look failed; will retry'))
            .finally(() => (running = undefined));
        }, deps.intervalMs);
  timer?.unref();
  return {
    look,
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
