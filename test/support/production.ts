/**
 * What the production tests on real nodes share (test/integration/production-*.test.ts): the skip when a node
 * or PostgreSQL is missing, a partner's client of a devnet server, the LTC <-> USDT requests, and polling.
 */
import type { Context } from 'mocha';
import type pg from 'pg';
import { privateKeyToAccount } from 'viem/accounts';
import { ANVIL_KEY_1 } from './anvil.js';
import { devnetUnavailable, DEVNET_ORIGIN, type DevnetServer } from './devnet.js';
import { swapClient } from './swaps.js';

/** The PostgreSQL server devnets make their databases on. */
export const DEVNET_ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * Why the whole-system tests on real nodes do not run in this pass, or null when they do: `.ci/run` sets
 * PSS_REAL_NODES_ONCE in its PGlite pass. These tests run production mode, which needs PostgreSQL whatever
 * DATABASE_URL says, so the PostgreSQL pass runs exactly the same tests; running them once keeps CI short.
 */
export function realNodesElsewhere(): string | null {
  return process.env.PSS_REAL_NODES_ONCE === '1' && !process.env.DATABASE_URL
    ? 'PSS_REAL_NODES_ONCE=1: production mode runs on PostgreSQL in any pass, and the PostgreSQL pass runs these tests'
    : null;
}

/** Skips the suite of `context` (a `before` hook's), printing why, where a devnet cannot start here. */
export async function skipWithoutDevnet(context: Context): Promise<void> {
  const missing = realNodesElsewhere() ?? (await devnetUnavailable(DEVNET_ADMIN_URL));
  if (missing) {
    console.log(`      skipped: ${missing}`);
    context.skip();
  }
}

/** The client of `partner` (made by createDevnetPartner) on `server`, for `user` when given. */
export function devnetClient(server: DevnetServer, partner: { keyId: string; secret: string }, user?: string) {
  return swapClient(server.baseUrl.replace('/api/v1', ''), { ...partner, audience: DEVNET_ORIGIN, ...(user ? { user } : {}) });
}

/** A quote request of `sourceAmount` LTC to USDT on Ethereum, refunded to the customer's `refundAddress`. */
export const ltcToUsdt = (sourceAmount: string, refundAddress: string) => ({
  sourceAsset: 'LTC',
  sourceNetwork: 'LTC',
  destinationAsset: 'USDT',
  destinationNetwork: 'ETH',
  sourceAmount,
  refundMode: 'address',
  refundAddress,
});

/** A quote request of `sourceAmount` USDT on Ethereum to LTC, refunded to anvil's second development account. */
export const usdtToLtc = (sourceAmount: string) => ({
  sourceAsset: 'USDT',
  sourceNetwork: 'ETH',
  destinationAsset: 'LTC',
  destinationNetwork: 'LTC',
  sourceAmount,
  refundMode: 'address',
  refundAddress: privateKeyToAccount(ANVIL_KEY_1).address,
});

/** Polls `probe` every 250 ms until it returns something; `state` says where things stood when it gives up. */
export async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs = 60_000, state?: () => Promise<string>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`the condition did not hold in time${state ? `: ${await state()}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * Expires the chain watcher leases the killed `server` held, as LEASE_MS passing would: a restart then watches
 * at once instead of LEASE_MS later.
 */
export const expireLeasesOf = (db: pg.Client, server: DevnetServer) =>
  db.query("update chain_watch_leases set expires_at = now() - interval '1 second' where split_part(holder, ':', 2) = $1", [
    String(server.child.process.pid),
  ]);
