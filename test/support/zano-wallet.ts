/**
 * A local stand-in for Zano's wallet RPC server (`simplewallet --rpc-bind-port`, here with the behaviour of
 * `--unsecure-no-auth`: no JWT), built from the documentation, for testing the Zano adapter without Zano
 * software. JSON-RPC 2.0 POSTs at `/json_rpc` on 127.0.0.1 (a free port). No test framework in here: a dev
 * script may import it too.
 *
 * Sources: github.com/hyle-team/zano-docs (commit f8577075, "Auto-doc built with: 2.2.1.502[72b939e]") and,
 * where the docs are silent or ambiguous, github.com/hyle-team/zano (commit ee3de1e5) C++ source. Per method:
 *
 * - make_integrated_address   api-reference/wallet-rpc-api/make_integrated_address.md; guide
 *                             docs/build/exchange-guidelines/multi-assets-custody-guide.md ("random 8 bytes" when
 *                             payment_id is empty). Errors, size check and the address layout (tag 0x3678 + keys +
 *                             payment id for a flags-less account) from wallet_rpc_server.cpp
 *                             on_make_integrated_address and currency_format_utils.cpp get_account_address_as_str.
 * - split_integrated_address  api-reference/wallet-rpc-api/split_integrated_address.md; exchange-faq.md (works
 *                             with standard addresses too). Error from on_split_integrated_address.
 * - getaddress                api-reference/wallet-rpc-api/getaddress.md
 * - getbalance                api-reference/wallet-rpc-api/getbalance.md; custody guide ("Requesting Wallet
 *                             Balance": whitelisting, unlocked excludes < 10 confirmations). Which assets appear,
 *                             and that balance/unlocked_balance are the native entry, from wallet2.cpp balance().
 *                             Native asset_info values from get_native_coin_asset_descriptor().
 * - get_wallet_info           api-reference/wallet-rpc-api/get_wallet_info.md (the field is spelled
 *                             `is_whatch_only`, as in the source struct COMMAND_RPC_GET_WALLET_INFO).
 * - get_recent_txs_and_info3  api-reference/wallet-rpc-api/get_recent_txs_and_info3.md; custody guide
 *                             ("Processing Incoming Transactions"); HF6-migration-guide.md. Ordering, offset,
 *                             last_item_index, total_transfers and unconfirmed-first from wallet2.cpp
 *                             get_recent_transfers_history and on_get_recent_txs_and_info3 (see ORDER below).
 * - get_recent_txs_and_info2, get_recent_txs_and_info, search_for_transactions (deprecated)
 *                             api-reference/wallet-rpc-api/<name>.md; HF6-migration-guide.md Table 3 ("fails on txs
 *                             with intrinsic PID"). HOW they fail is from wallet_public_structs_defs.h
 *                             (wallet_transfer_info_v2 / _old) and epee serialize_ephemeral: there is no RPC
 *                             error, the legacy `payment_id` reads "" (v2) or is left out (old), and `subtransfers`
 *                             is left out when a tx carries more than one payment id. The adapter must not use them.
 * - search_for_transactions2  api-reference/wallet-rpc-api/search_for_transactions2.md; filter logic from
 *                             on_search_for_transactions2.
 * - transfer                  api-reference/wallet-rpc-api/transfer.md; signing-transactions-offline.md (a watch-only
 *                             wallet answers tx_hash "", tx_size 0 and tx_unsigned_hex); exchange-faq.md (minimum
 *                             fee 0.01 ZANO). From on_transfer and fill_destination_helper.h: the fee check and its
 *                             message, destinations[].payment_id being a uint64 (intrinsic pid), the tx-wide
 *                             `payment_id` and push_payer=true being refused, `used_out_ids`, and `tx_details`
 *                             (not in the docs) on a non-watch-only wallet.
 * - sign_transfer             api-reference/wallet-rpc-api/sign_transfer.md; signing-transactions-offline.md step 6.
 *                             Watch-only refusal and key-mismatch messages from wallet2.cpp sign_transfer.
 * - submit_transfer           api-reference/wallet-rpc-api/submit_transfer.md; signing-transactions-offline.md step 7.
 *                             Non-watch-only refusal and KEY_IMAGE_ALREADY_SPENT message from wallet2.cpp
 *                             submit_transfer; "already in pool is not an error" from core_rpc_server.cpp
 *                             on_send_raw_tx.
 * - clear_utxo_cold_sig_reservation api-reference/wallet-rpc-api/clear_utxo_cold_sig_reservation.md
 * - assets_whitelist_add      api-reference/wallet-rpc-api/assets_whitelist_add.md; status "NOT_FOUND" for an asset
 *                             the network does not know from on_assets_whitelist_add / basic_api_response_codes.h.
 * - assets_whitelist_get      api-reference/wallet-rpc-api/assets_whitelist_get.md
 * - errors                    codes: src/wallet/wallet_rpc_server_error_codes.h; wrapping ("<CODE NAME>: ..."):
 *                             WALLET_RPC_CATCH_TRY_ENTRY in wallet_rpc_server.cpp; -32700/-32600/-32601/-32602 from
 *                             contrib/epee/include/net/http_server_handlers_map2.h. exchange-faq.md: amounts given as
 *                             strings get "Invalid params".
 *
 * Wire format (source, epee): empty arrays are LEFT OUT of answers (keyvalue_serialization_overloads.h
 * `if(!container.size()) return true;`), e.g. `transfers` with no history, `remote_addresses`, `balances` of an
 * empty wallet; integers are JSON numbers, serialized exactly (uint64 values above 2^53 occur, e.g. the native
 * total_max_supply 18446744073709551615 and employed_entries payment_id). Amounts are atomic units.
 *
 * ORDER: the source enumerates history newest-first for "FROM_END_TO_BEGIN" (the default) and oldest-first for
 * "FROM_BEGIN_TO_END"; transfer_internal_index is offset + position in that enumeration. The custody guide's prose
 * says the opposite, its own example and the source agree with this model.
 *
 * Model, not the real thing: a tx blob here is hex of JSON (real ones are encrypted binary); tx hashes and key
 * images are random; an output is unlocked once its block has WALLET_DEFAULT_TX_SPENDABLE_AGE (10) confirmations
 * counting its own block (height + 10 <= top + 1, wallet2::is_transfer_unlocked) and its unlock_time has passed
 * (is_tx_spendtime_unlocked). Signing the same unsigned tx twice gives two different tx hashes spending the same key
 * images (the docs warn about it): the second one submitted while the first is in the pool is rejected by the
 * "daemon" (GENERIC_TRANSFER_ERROR, status "Failed"); once the first is in a block, KEY_IMAGE_ALREADY_SPENT.
 * Texts after "<CODE NAME>: " of wallet exceptions are approximations of the C++ what() (type name, location).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ed25519 } from '@noble/curves/ed25519.js';
import { isInteger, parse, stringify } from 'lossless-json';
import { decodeZanoAddress, encodeZanoAddress, ZANO_ADDRESS_TAGS } from '../../server/domain/zano-address.js';

/** The native coin's asset id (custody guide). */
export const ZANO_ASSET_ID = 'd6329b5b1f7c0805b5c345f4957554002a2f557845f64d7645dae0e051a6498a';
/** fUSD (Freedom Dollar): hyle-team/zano governance/governance.md ZAP2 (not in zano-docs). */
export const FUSD_ASSET_ID = '86143388bd056a8f0bab669f78f14873fac8e2dd8d57898cdb725a2d5e2e4f8f';
/** TX_MINIMUM_FEE, 0.01 ZANO (currency_config.h; exchange-faq.md). */
export const ZANO_MIN_FEE = 10_000_000_000n;
/** WALLET_DEFAULT_TX_SPENDABLE_AGE = CURRENCY_HF4_MANDATORY_MIN_COINAGE. */
export const SPENDABLE_AGE = 10;
const MAX_BLOCK_NUMBER = 500_000_000n;
const LOCKED_TX_ALLOWED_DELTA_SECONDS = 60n;
const UINT64_MAX = (1n << 64n) - 1n;
const NULL_KEY = '0'.repeat(64);

/** wallet_rpc_server_error_codes.h */
export const ZanoWalletErrorCode = {
  UNKNOWN_ERROR: -1,
  WRONG_ADDRESS: -2,
  DAEMON_IS_BUSY: -3,
  GENERIC_TRANSFER_ERROR: -4,
  WRONG_PAYMENT_ID: -5,
  WRONG_ARGUMENT: -6,
  NOT_ENOUGH_MONEY: -7,
  WRONG_MIXINS_FOR_AUDITABLE_WALLET: -8,
  GENERIC_ERROR: -9,
  KEY_IMAGE_ALREADY_SPENT: -10,
  TX_FREEZE_PERIOD: -11,
  DEPRECATED: -12,
  NOTHING_TO_DO: -13,
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
} as const;

/** An asset descriptor as the wallet prints it (asset_descriptor_with_id). */
export interface ZanoAssetInfo {
  asset_id: string;
  ticker: string;
  full_name: string;
  decimal_point: number;
  total_max_supply: bigint;
  current_supply: bigint;
  meta_info: string;
  owner: string;
  hidden_supply: boolean;
  owner_eth_pub_key: string;
}

export const ZANO_ASSET_INFO: ZanoAssetInfo = {
  asset_id: ZANO_ASSET_ID,
  ticker: 'ZANO',
  full_name: 'Zano',
  decimal_point: 12,
  total_max_supply: UINT64_MAX,
  current_supply: 0n,
  meta_info: '',
  owner: NULL_KEY,
  hidden_supply: false,
  owner_eth_pub_key: '',
};

/** decimal_point 4 is NOT in the Zano docs or source: it is the project's catalogue precision for fUSD. */
export const FUSD_ASSET_INFO: ZanoAssetInfo = {
  asset_id: FUSD_ASSET_ID,
  ticker: 'fUSD',
  full_name: 'Freedom Dollar',
  decimal_point: 4,
  total_max_supply: 1_000_000_000_000_000n,
  current_supply: 100_000_000_000n,
  meta_info: '',
  owner: 'a'.repeat(64),
  hidden_supply: false,
  owner_eth_pub_key: '',
};

/** The keys a wallet file holds, as far as this model needs them. */
export interface ZanoAccount {
  spendPublicKey: Uint8Array;
  viewPublicKey: Uint8Array;
}

export function createZanoAccount(): ZanoAccount {
  const key = () => ed25519.getPublicKey(ed25519.utils.randomSecretKey());
  return { spendPublicKey: key(), viewPublicKey: key() };
}

/** The keys of an existing standard address (e.g. a documentation example). */
export function zanoAccountFromAddress(address: string): ZanoAccount {
  const decoded = decodeZanoAddress(address);
  return { spendPublicKey: decoded.spendPublicKey, viewPublicKey: decoded.viewPublicKey };
}

export interface ZanoWalletOptions {
  /** A watch-only (hot) wallet: `transfer` answers an unsigned tx, `submit_transfer` relays. Default false. */
  watchOnly?: boolean;
  /** The same account for a watch-only wallet and its signer. Default: a new one. */
  account?: ZanoAccount;
  /** Top block height at start. Default 100. */
  height?: number;
  /** ZANO_HARDFORK_06 active (intrinsic payment ids). Default true. */
  hardFork6?: boolean;
  /** simplewallet --allow-legacy-payment-id-size. Default false. */
  allowLegacyPaymentIdSize?: boolean;
  /** Assets on the global whitelist besides ZANO. Default [fUSD]. */
  globalWhitelist?: ZanoAssetInfo[];
  /** Unix seconds of the starting top block. Default now. */
  startTime?: number;
  /** get_wallet_info `path`. */
  path?: string;
}

/** One payment carried by an injected incoming tx. */
export interface IncomingPayment {
  /** Hex payment id ("" or absent: none). Up to 8 bytes is intrinsic (per output) unless legacyTxWide. */
  paymentId?: string;
  assetId?: string;
  amount: bigint;
}

export interface ReceiveOptions extends Partial<IncomingPayment> {
  /** More payments in the same tx (HF6 allows several payment ids and assets in one tx). */
  payments?: IncomingPayment[];
  unlockTime?: bigint | number;
  /** Confirmed in this block (<= top). Absent: the tx waits in the pool until the next mine(). */
  height?: number;
  /** The payment id is a legacy tx-wide one (attachment), not intrinsic. */
  legacyTxWide?: boolean;
  /** A descriptor for an asset the network does not know yet. */
  assetInfo?: Partial<ZanoAssetInfo>;
  fee?: bigint;
  comment?: string;
  remoteAddress?: string;
}

export interface Submission {
  txHash: string;
  accepted: boolean;
  error?: { code: number; message: string };
}

export interface ZanoWalletControl {
  readonly account: ZanoAccount;
  readonly address: string;
  readonly watchOnly: boolean;
  /** Top block height. */
  height(): number;
  /** Adds n blocks; the first takes every pool tx. Returns the new height. */
  mine(n?: number): number;
  /** Injects an incoming tx; returns its hash. */
  receive(options: ReceiveOptions): string;
  /** Takes a tx out of the chain: gone (default) or back to the pool. False when unknown. */
  reorg(txHash: string, options?: { toPool?: boolean }): boolean;
  /** Makes an asset known to the network (so assets_whitelist_add finds it). */
  registerAsset(info: Partial<ZanoAssetInfo> & { asset_id: string }): void;
  balance(assetId?: string): { total: bigint; unlocked: bigint; awaitingIn: bigint; awaitingOut: bigint };
  /** Every submit_transfer call, in order (and, on a full wallet, every broadcast transfer). */
  readonly submissions: readonly Submission[];
  /** Every JSON-RPC call: method and raw params. */
  readonly calls: readonly { method: string; params: unknown }[];
  /** Confirmations as the custody guide counts them (pi.curent_height - height), null if unknown/unconfirmed. */
  confirmations(txHash: string): number | null;
  /** The next call of `method` answers this error instead. */
  failNext(method: string, error: { code: number; message: string }): void;
}

export interface ZanoWallet {
  url: string;
  close(): Promise<void>;
  control: ZanoWalletControl;
}

// ---------------------------------------------------------------------------------------------------------------
// state

interface Output {
  outId: number;
  txHash: string;
  index: number;
  amount: bigint;
  assetId: string;
  keyImage: string;
  pubKey: string;
  paymentId: bigint;
  spentBy?: string;
  reservedBy?: string;
}

interface Sub {
  amount: bigint;
  assetId: string;
  isIncome: boolean;
}

interface Employed {
  index: number;
  amount: bigint;
  assetId: string;
  paymentId: bigint;
}

interface TxRecord {
  hash: string;
  height: number;
  timestamp: number;
  unlockTime: bigint;
  fee: bigint;
  comment: string;
  blobSize: number;
  txWidePaymentId: string;
  groups: { paymentId: string; subs: Sub[] }[];
  receive: Employed[];
  spent: Employed[];
  remoteAddresses: string[];
  keyImages: string[];
}

/** What a transfer will do; travels inside the unsigned and signed blobs (as JSON with decimal-string amounts). */
interface Plan {
  id: string;
  spendKey: string;
  fee: bigint;
  comment: string;
  destinations: { address: string; amount: bigint; assetId: string; paymentId: bigint }[];
  inputs: { outId: number; amount: bigint; assetId: string; keyImage: string }[];
  change: { amount: bigint; assetId: string }[];
  sharedPaymentId: string;
}

class RpcFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

const invalidParams = () => new RpcFailure(ZanoWalletErrorCode.INVALID_PARAMS, 'Invalid params');
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const randomHex = (bytes: number) => randomBytes(bytes).toString('hex');

/** print_money_brief (currency_format_utils.cpp). */
function printMoneyBrief(amount: bigint, decimalPoint = 12): string {
  const coin = 10n ** BigInt(decimalPoint);
  const whole = amount / coin;
  const rem = amount % coin;
  if (rem === 0n) return `${whole}${decimalPoint > 0 ? '.0' : ''}`;
  return `${whole}.${rem.toString().padStart(decimalPoint, '0').replace(/0+$/, '')}`;
}

/** A wallet exception's what() after "<CODE NAME>: " (type name and location approximated). */
function walletWhat(type: string, message: string, line: number): string {
  return `[${type}] wallet2.cpp:${line}\n  ${message}`;
}

// params readers: a wrong type is "Invalid params", as epee's loader fails the whole request
const u64 = (v: unknown, dflt = 0n): bigint => {
  if (v === undefined) return dflt;
  if (typeof v !== 'bigint' || v < 0n || v > UINT64_MAX) throw invalidParams();
  return v;
};
const bool = (v: unknown, dflt = false): boolean => {
  if (v === undefined) return dflt;
  if (typeof v !== 'boolean') throw invalidParams();
  return v;
};
const str = (v: unknown, dflt = ''): string => {
  if (v === undefined) return dflt;
  if (typeof v !== 'string') throw invalidParams();
  return v;
};
const pod = (v: unknown, dflt: string): string => {
  if (v === undefined) return dflt;
  if (typeof v !== 'string' || !/^[0-9a-fA-F]{64}$/.test(v)) throw invalidParams();
  return v.toLowerCase();
};
const list = (v: unknown): unknown[] => {
  if (v === undefined) return [];
  if (!Array.isArray(v)) throw invalidParams();
  return v;
};
const obj = (v: unknown): Record<string, unknown> => {
  if (v === undefined) return {};
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw invalidParams();
  return v as Record<string, unknown>;
};

/** epee leaves empty containers out of its JSON. */
function dropEmpty(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropEmpty);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (v === undefined || (Array.isArray(v) && v.length === 0)) continue;
      out[k] = dropEmpty(v);
    }
    return out;
  }
  return value;
}

/** A payment id's bytes as the uint64 an intrinsic pid is (convert_payment_id: left-padded, little-endian). */
function pidToU64(pidHex: string): bigint {
  if (pidHex === '') return 0n;
  const bytes = Buffer.concat([Buffer.alloc(8 - pidHex.length / 2), Buffer.from(pidHex, 'hex')]);
  return bytes.readBigUInt64LE(0);
}
function u64ToPid(value: bigint): string {
  if (value === 0n) return '';
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(value);
  return b.toString('hex');
}

const toBlob = (kind: string, data: unknown): string =>
  Buffer.from(JSON.stringify({ kind, data }, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))).toString('hex');
function fromBlob(hexText: string, kind: string): unknown {
  try {
    const parsed = JSON.parse(Buffer.from(hexText, 'hex').toString('utf8'), (_k, v: unknown) =>
      typeof v === 'string' && /^\d+n$/.test(v) ? BigInt(v.slice(0, -1)) : v,
    ) as { kind?: string; data?: unknown };
    return parsed.kind === kind ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------------------------

export async function startZanoWallet(options: ZanoWalletOptions = {}): Promise<ZanoWallet> {
  const watchOnly = options.watchOnly ?? false;
  const account = options.account ?? createZanoAccount();
  const hf6 = options.hardFork6 ?? true;
  const allowLegacyPid = options.allowLegacyPaymentIdSize ?? false;
  const keysBody = Buffer.concat([account.spendPublicKey, account.viewPublicKey]);
  const address = encodeZanoAddress(ZANO_ADDRESS_TAGS.standard, keysBody);
  const spendKeyHex = hex(account.spendPublicKey);
  const startHeight = options.height ?? 100;
  const startTime = options.startTime ?? Math.floor(Date.now() / 1000);

  let top = startHeight;
  const known = new Map<string, ZanoAssetInfo>([[ZANO_ASSET_ID, ZANO_ASSET_INFO]]);
  const globalWhitelist = new Set<string>();
  for (const info of options.globalWhitelist ?? [FUSD_ASSET_INFO]) {
    known.set(info.asset_id, info);
    globalWhitelist.add(info.asset_id);
  }
  const localWhitelist = new Set<string>();
  const history: TxRecord[] = [];
  const pool: TxRecord[] = [];
  const outputs: Output[] = [];
  const submissions: Submission[] = [];
  const calls: { method: string; params: unknown }[] = [];
  const failures = new Map<string, { code: number; message: string }>();
  const unsigned = new Map<string, Plan>();

  const timestampAt = (height: number) => startTime + (height - startHeight) * 60;
  const txOf = (hash: string) => history.find((t) => t.hash === hash) ?? pool.find((t) => t.hash === hash);

  function registerAsset(info: Partial<ZanoAssetInfo> & { asset_id: string }): void {
    known.set(info.asset_id, {
      ticker: 'UNKNOWN',
      full_name: 'Unknown asset',
      decimal_point: 12,
      total_max_supply: 1_000_000_000_000_000_000n,
      current_supply: 1_000_000_000_000_000n,
      meta_info: '',
      owner: NULL_KEY,
      hidden_supply: false,
      owner_eth_pub_key: '',
      ...info,
    });
  }

  function isUnlocked(o: Output): boolean {
    const tx = txOf(o.txHash);
    if (!tx || tx.height === 0) return false;
    if (tx.height + SPENDABLE_AGE > top + 1) return false;
    const ut = tx.unlockTime;
    if (ut === 0n) return true;
    if (ut < MAX_BLOCK_NUMBER) return ut <= BigInt(top + 1);
    return ut <= BigInt(Math.floor(Date.now() / 1000)) + LOCKED_TX_ALLOWED_DELTA_SECONDS;
  }
  const confirmedTx = (o: Output) => (txOf(o.txHash)?.height ?? 0) > 0;

  function balances(): Map<string, { total: bigint; unlocked: bigint; awaitingIn: bigint; awaitingOut: bigint; outs: bigint[] }> {
    const map = new Map<string, { total: bigint; unlocked: bigint; awaitingIn: bigint; awaitingOut: bigint; outs: bigint[] }>();
    const entry = (id: string) => {
      let e = map.get(id);
      if (!e) map.set(id, (e = { total: 0n, unlocked: 0n, awaitingIn: 0n, awaitingOut: 0n, outs: [] }));
      return e;
    };
    for (const o of outputs) {
      if (o.spentBy) continue;
      if (confirmedTx(o)) {
        const e = entry(o.assetId);
        e.total += o.amount;
        e.outs.push(o.amount);
        if (isUnlocked(o)) e.unlocked += o.amount;
      } else {
        entry(o.assetId).total += o.amount; // pool income and pool change count in total (wallet2::balance)
      }
    }
    for (const tx of pool) {
      for (const g of tx.groups) {
        for (const s of g.subs) {
          const e = entry(s.assetId);
          if (s.isIncome) e.awaitingIn += s.amount;
          else e.awaitingOut += s.assetId === ZANO_ASSET_ID ? s.amount - tx.fee : s.amount;
        }
      }
    }
    return map;
  }

  function wti(tx: TxRecord, index = 0): Record<string, unknown> {
    return {
      tx_hash: tx.hash,
      height: BigInt(tx.height),
      unlock_time: tx.unlockTime,
      tx_blob_size: BigInt(tx.blobSize),
      comment: tx.comment,
      timestamp: BigInt(tx.timestamp),
      employed_entries: {
        receive: tx.receive.map(employedJson),
        spent: tx.spent.map(employedJson),
      },
      fee: tx.fee,
      is_service: false,
      is_mixing: false,
      is_mining: false,
      tx_type: 0n,
      show_sender: false,
      contract: [],
      service_entries: [],
      transfer_internal_index: BigInt(index),
      remote_addresses: tx.remoteAddresses,
      remote_aliases: [],
      subtransfers_by_pid: tx.groups.map((g) => ({
        payment_id: g.paymentId,
        subtransfers: g.subs.map((s) => ({ amount: s.amount, is_income: s.isIncome, asset_id: s.assetId })),
      })),
    };
  }
  const employedJson = (e: Employed) => ({
    index: BigInt(e.index),
    amount: e.amount,
    asset_id: e.assetId,
    payment_id: e.paymentId,
  });
  const hasIntrinsic = (tx: TxRecord) => tx.txWidePaymentId === '' && tx.groups.some((g) => g.paymentId !== '');
  const hasOutgoing = (tx: TxRecord) => tx.groups.some((g) => g.subs.some((s) => !s.isIncome));
  /** wallet_transfer_info_v2 (get_recent_txs_and_info2). */
  function wtiV2(tx: TxRecord, index: number): Record<string, unknown> {
    return {
      payment_id: tx.txWidePaymentId,
      subtransfers:
        tx.groups.length <= 1
          ? (tx.groups[0]?.subs ?? []).map((s) => ({ amount: s.amount, is_income: s.isIncome, asset_id: s.assetId }))
          : undefined,
      ...wti(tx, index),
    };
  }
  /** wallet_transfer_info_old (get_recent_txs_and_info, search_for_transactions). */
  function wtiOld(tx: TxRecord, index: number): Record<string, unknown> {
    const natives = tx.groups.flatMap((g) => g.subs).filter((s) => s.assetId === ZANO_ASSET_ID);
    const income = natives[0]?.isIncome ?? false;
    let paymentId: string | undefined = tx.txWidePaymentId;
    if (hasIntrinsic(tx)) paymentId = tx.groups.length === 1 ? tx.groups[0].paymentId : undefined;
    return {
      amount: natives.filter((s) => s.isIncome === income).reduce((a, s) => a + s.amount, 0n),
      is_income: income,
      payment_id: paymentId,
      ...wti(tx, index),
    };
  }

  function recentTxs(params: Record<string, unknown>, shape: (tx: TxRecord, index: number) => Record<string, unknown>) {
    const offset = Number(u64(params.offset));
    const count = Number(u64(params.count));
    const excludeUnconfirmed = bool(params.exclude_unconfirmed);
    bool(params.exclude_mining_txs);
    const order = str(params.order);
    const updatePi = bool(params.update_provision_info);
    const result: Record<string, unknown> = { total_transfers: 0n, last_item_index: 0n };
    if (updatePi) {
      const native = balances().get(ZANO_ASSET_ID);
      result.pi = {
        transfers_count: BigInt(history.length),
        transfer_entries_count: BigInt(outputs.length),
        balance: native?.total ?? 0n,
        unlocked_balance: native?.unlocked ?? 0n,
        curent_height: BigInt(top),
      };
    } else {
      result.pi = { transfers_count: 0n, transfer_entries_count: 0n, balance: 0n, unlocked_balance: 0n, curent_height: 0n };
    }
    const transfers: Record<string, unknown>[] = [];
    if (offset === 0 && !excludeUnconfirmed) for (const tx of [...pool].reverse()) transfers.push(shape(tx, 0));
    if (count > 0 && offset < history.length) {
      const sequence = order === 'FROM_BEGIN_TO_END' ? history : [...history].reverse();
      for (let i = offset; i < sequence.length; i++) {
        transfers.push(shape(sequence[i], i));
        result.last_item_index = BigInt(i);
        if (transfers.length >= count) break;
      }
      result.total_transfers = BigInt(history.length);
    }
    result.transfers = transfers;
    return result;
  }

  function searchTxs(params: Record<string, unknown>, shape: (tx: TxRecord, index: number) => Record<string, unknown>) {
    const txId = pod(params.tx_id, NULL_KEY);
    const wantIn = bool(params.in);
    const wantOut = bool(params.out);
    const wantPool = bool(params.pool);
    const byHeight = bool(params.filter_by_height);
    const minHeight = u64(params.min_height);
    const maxHeight = u64(params.max_height);
    const res = { in: [] as unknown[], out: [] as unknown[], pool: [] as unknown[] };
    for (let i = history.length - 1; i >= 0; i--) {
      const tx = history[i];
      if (txId !== NULL_KEY && tx.hash !== txId) continue;
      if (byHeight) {
        if (BigInt(tx.height) < minHeight) break;
        if (BigInt(tx.height) > maxHeight) continue;
      }
      const out = hasOutgoing(tx);
      if (!out && wantIn) res.in.push(shape(tx, i));
      if (out && wantOut) res.out.push(shape(tx, i));
    }
    if (wantPool) {
      for (const tx of pool) if ((!hasOutgoing(tx) && wantIn) || (hasOutgoing(tx) && wantOut)) res.pool.push(shape(tx, 0));
    }
    return res;
  }

  function assetJson(info: ZanoAssetInfo) {
    return {
      total_max_supply: info.total_max_supply,
      current_supply: info.current_supply,
      decimal_point: BigInt(info.decimal_point),
      ticker: info.ticker,
      full_name: info.full_name,
      meta_info: info.meta_info,
      owner: info.owner,
      hidden_supply: info.hidden_supply,
      owner_eth_pub_key: info.owner_eth_pub_key,
    };
  }
  const assetWithIdJson = (info: ZanoAssetInfo) => ({ ...assetJson(info), asset_id: info.asset_id });

  // ------------------------------------------------------------------------------------------------ transfers

  /** Address to keys and embedded pid, or a WRONG_ADDRESS failure (get_transfer_address). */
  function resolveAddress(text: string): { keys: string; paymentId: string } {
    try {
      const d = decodeZanoAddress(text);
      return { keys: hex(d.spendPublicKey) + hex(d.viewPublicKey), paymentId: d.paymentId ? hex(d.paymentId) : '' };
    } catch {
      throw new RpcFailure(ZanoWalletErrorCode.WRONG_ADDRESS, `WALLET_RPC_ERROR_CODE_WRONG_ADDRESS: ${text}`);
    }
  }

  function planTransfer(params: Record<string, unknown>): Plan {
    const fee = u64(params.fee);
    u64(params.mixin);
    const txWidePid = str(params.payment_id);
    const comment = str(params.comment);
    const pushPayer = bool(params.push_payer);
    bool(params.hide_receiver);
    bool(params.service_entries_permanent);
    list(params.service_entries);
    const outIds = list(params.out_ids_to_spend).map((v) => Number(u64(v)));
    const rawDestinations = list(params.destinations).map((d) => {
      const o = obj(d);
      return { address: str(o.address), amount: u64(o.amount), assetId: pod(o.asset_id, ZANO_ASSET_ID), paymentId: u64(o.payment_id) };
    });

    if (fee < ZANO_MIN_FEE) {
      throw new RpcFailure(ZanoWalletErrorCode.WRONG_ARGUMENT, `Given fee is too low: ${fee}, minimum is: ${ZANO_MIN_FEE}`);
    }
    if (txWidePid !== '') {
      throw new RpcFailure(ZanoWalletErrorCode.WRONG_PAYMENT_ID, `tx-wide payment id you provided is now deprecated: ${txWidePid}`);
    }
    let legacyPid = '';
    const destinations: Plan['destinations'] = [];
    rawDestinations.forEach((d, i) => {
      const { keys, paymentId: embedded } = resolveAddress(d.address);
      if (keys === keysBody.toString('hex') && embedded !== '') {
        throw new RpcFailure(
          ZanoWalletErrorCode.WRONG_PAYMENT_ID,
          `transfers with an integrated address to self is not allowed: ${d.address}`,
        );
      }
      let pid = d.paymentId;
      if (hf6) {
        if (embedded !== '') {
          if (legacyPid !== '') {
            throw new RpcFailure(
              ZanoWalletErrorCode.WRONG_PAYMENT_ID,
              `payment_id embeded into integrated address ${d.address} conflicts with previously set tx-wide payment id (perhaps, from another integrated address)`,
            );
          }
          if (embedded.length <= 16) {
            if (d.paymentId !== 0n) {
              throw new RpcFailure(
                ZanoWalletErrorCode.WRONG_PAYMENT_ID,
                `embedded payment id: ${embedded} conflicts with destination intrinsic payment id: ${u64ToPid(d.paymentId)}`,
              );
            }
            pid = pidToU64(embedded);
          } else {
            if (!allowLegacyPid) {
              throw new RpcFailure(
                ZanoWalletErrorCode.WRONG_PAYMENT_ID,
                `payment_id embeded into integrated address ${d.address} is too long, maximum is 8 bytes`,
              );
            }
            if (i !== 0) {
              throw new RpcFailure(
                ZanoWalletErrorCode.WRONG_PAYMENT_ID,
                `long embedded payment id: ${embedded} can only be set for the first destination (and so you can use integrated address with long payment id only for the first destination)`,
              );
            }
            legacyPid = embedded;
          }
        }
        if (d.paymentId !== 0n && legacyPid !== '') {
          throw new RpcFailure(
            ZanoWalletErrorCode.WRONG_PAYMENT_ID,
            `destination intrinsic payment id: ${u64ToPid(d.paymentId)} conflicts with previously set tx-wide payment id`,
          );
        }
      } else {
        if (d.paymentId !== 0n)
          throw new RpcFailure(ZanoWalletErrorCode.WRONG_PAYMENT_ID, 'intrinsic payment id cannot be used before HF6');
        if (embedded !== '') {
          if (!allowLegacyPid && embedded.length > 16) {
            throw new RpcFailure(
              ZanoWalletErrorCode.WRONG_PAYMENT_ID,
              `payment_id embedded into integrated address ${d.address} is too long, maximum is 8 bytes`,
            );
          }
          if (legacyPid !== '') {
            throw new RpcFailure(
              ZanoWalletErrorCode.WRONG_PAYMENT_ID,
              `embedded payment id: ${embedded} conflicts with previously set payment id: ${legacyPid}`,
            );
          }
          if (i !== 0) {
            throw new RpcFailure(
              ZanoWalletErrorCode.WRONG_PAYMENT_ID,
              `embedded payment id: ${embedded} currently can only be set for the first destination (and so you can use integrated address only for the first destination)`,
            );
          }
          legacyPid = embedded;
          pid = 0n;
        }
      }
      destinations.push({ address: d.address, amount: d.amount, assetId: d.assetId, paymentId: pid });
    });
    if (pushPayer) throw new RpcFailure(ZanoWalletErrorCode.WRONG_ARGUMENT, 'push_payer=true is not supported anymore');
    for (const id of outIds) {
      if (!outputs.some((o) => o.outId === id)) {
        throw new RpcFailure(ZanoWalletErrorCode.WRONG_ARGUMENT, `out_ids_to_spend has incorrect output index: ${id}`);
      }
    }

    // select unlocked, unspent, unreserved outputs per asset (native also pays the fee)
    const needed = new Map<string, bigint>([[ZANO_ASSET_ID, fee]]);
    for (const d of destinations) needed.set(d.assetId, (needed.get(d.assetId) ?? 0n) + d.amount);
    const inputs: Plan['inputs'] = [];
    const change: Plan['change'] = [];
    for (const [assetId, amount] of needed) {
      const candidates = outputs.filter(
        (o) => o.assetId === assetId && !o.spentBy && !o.reservedBy && isUnlocked(o) && (outIds.length === 0 || outIds.includes(o.outId)),
      );
      let gathered = 0n;
      for (const o of candidates) {
        if (gathered >= amount) break;
        inputs.push({ outId: o.outId, amount: o.amount, assetId, keyImage: o.keyImage });
        gathered += o.amount;
      }
      if (gathered < amount) {
        const info = known.get(assetId);
        const sent = assetId === ZANO_ASSET_ID ? amount - fee : amount;
        const fees = assetId === ZANO_ASSET_ID ? fee : 0n;
        let what =
          `available: ${printMoneyBrief(gathered, info?.decimal_point)}, required: ${printMoneyBrief(sent + fees, info?.decimal_point)}` +
          ` = ${printMoneyBrief(sent, info?.decimal_point)} + ${printMoneyBrief(fees)} (fee)`;
        if (assetId !== ZANO_ASSET_ID) what += `, asset_id: ${assetId}`;
        throw new RpcFailure(
          ZanoWalletErrorCode.NOT_ENOUGH_MONEY,
          `WALLET_RPC_ERROR_CODE_NOT_ENOUGH_MONEY: ${walletWhat('N5tools5error16not_enough_moneyE', what, 7263)}`,
        );
      }
      if (gathered > amount) change.push({ amount: gathered - amount, assetId });
    }
    const pids = new Set(destinations.map((d) => u64ToPid(d.paymentId)));
    return {
      id: randomHex(32),
      spendKey: spendKeyHex,
      fee,
      comment,
      destinations,
      inputs,
      change,
      sharedPaymentId: legacyPid !== '' ? legacyPid : pids.size === 1 ? [...pids][0] : '',
    };
  }

  /** Puts a signed tx in the pool: its inputs spent, its change a new (pool) output. */
  function relay(plan: Plan, txHash: string): TxRecord {
    const outgoing = new Map<string, bigint>();
    for (const d of plan.destinations) outgoing.set(d.assetId, (outgoing.get(d.assetId) ?? 0n) + d.amount);
    outgoing.set(ZANO_ASSET_ID, (outgoing.get(ZANO_ASSET_ID) ?? 0n) + plan.fee);
    const tx: TxRecord = {
      hash: txHash,
      height: 0,
      timestamp: 0,
      unlockTime: 0n,
      fee: plan.fee,
      comment: plan.comment,
      blobSize: 1500 + 300 * (plan.destinations.length + plan.change.length),
      txWidePaymentId: '',
      // Grouping of OUTGOING amounts by payment id is not documented: one group, the destinations' pid if shared.
      groups: [{ paymentId: plan.sharedPaymentId, subs: [...outgoing].map(([assetId, amount]) => ({ amount, assetId, isIncome: false })) }],
      receive: [],
      spent: plan.inputs.map((inp, i) => ({ index: i, amount: inp.amount, assetId: inp.assetId, paymentId: 0n })),
      remoteAddresses: plan.destinations.map((d) => d.address),
      keyImages: plan.inputs.map((i) => i.keyImage),
    };
    for (const inp of plan.inputs) {
      const o = outputs.find((x) => x.outId === inp.outId);
      if (o) {
        o.spentBy = txHash;
        o.reservedBy = undefined;
      }
    }
    plan.change.forEach((c, i) => {
      const index = plan.destinations.length + i;
      outputs.push({
        outId: outputs.length,
        txHash,
        index,
        amount: c.amount,
        assetId: c.assetId,
        keyImage: randomHex(32),
        pubKey: randomHex(32),
        paymentId: 0n,
      });
      tx.receive.push({ index, amount: c.amount, assetId: c.assetId, paymentId: 0n });
    });
    pool.push(tx);
    return tx;
  }

  /** Key images spent in a block, or by another tx in the pool. */
  function keyImageConflict(keyImages: string[], txHash: string): { where: 'chain' | 'pool'; keyImage: string } | undefined {
    for (const ki of keyImages) {
      if (history.some((t) => t.keyImages.includes(ki))) return { where: 'chain', keyImage: ki };
      if (pool.some((t) => t.hash !== txHash && t.keyImages.includes(ki))) return { where: 'pool', keyImage: ki };
    }
    return undefined;
  }

  // ------------------------------------------------------------------------------------------------ methods

  const methods: Record<string, (p: Record<string, unknown>) => unknown> = {
    getaddress: () => ({ address }),

    get_wallet_info: (p) => {
      bool(p.collect_utxo_data);
      return {
        address,
        path: options.path ?? (watchOnly ? '/wallets/zano_wallet_watch_only' : '/wallets/zano_wallet_master'),
        transfers_count: BigInt(history.length),
        transfer_entries_count: BigInt(outputs.length),
        is_whatch_only: watchOnly,
        has_bare_unspent_outputs: false,
        utxo_distribution: [],
        current_height: BigInt(top),
      };
    },

    getbalance: () => {
      const map = balances();
      const list: unknown[] = [];
      let balance = 0n;
      let unlockedBalance = 0n;
      for (const [assetId, e] of map) {
        const info = known.get(assetId);
        if (!info || !(assetId === ZANO_ASSET_ID || globalWhitelist.has(assetId) || localWhitelist.has(assetId))) continue;
        if (assetId === ZANO_ASSET_ID) {
          balance = e.total;
          unlockedBalance = e.unlocked;
        }
        list.push(balanceJson(info, e));
      }
      for (const assetId of localWhitelist) {
        if (map.has(assetId)) continue;
        list.push(balanceJson(known.get(assetId)!, { total: 0n, unlocked: 0n, awaitingIn: 0n, awaitingOut: 0n, outs: [] }));
      }
      return { balance, unlocked_balance: unlockedBalance, balances: list };
    },

    make_integrated_address: (p) => {
      const given = str(p.payment_id);
      if (given.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(given)) {
        throw new RpcFailure(ZanoWalletErrorCode.WRONG_PAYMENT_ID, `invalid payment id given: '${given}', hex-encoded string was expected`);
      }
      if (given.length / 2 > (allowLegacyPid ? 128 : 8)) {
        throw new RpcFailure(ZanoWalletErrorCode.WRONG_PAYMENT_ID, `given payment id is too long: '${given}'`);
      }
      const pid = given === '' ? randomHex(8) : given.toLowerCase();
      return {
        integrated_address: encodeZanoAddress(ZANO_ADDRESS_TAGS.integrated, Buffer.concat([keysBody, Buffer.from(pid, 'hex')])),
        payment_id: pid,
      };
    },

    split_integrated_address: (p) => {
      const text = str(p.integrated_address);
      let d;
      try {
        d = decodeZanoAddress(text);
      } catch {
        throw new RpcFailure(ZanoWalletErrorCode.WRONG_ADDRESS, `invalid integrated address given: '${text}'`);
      }
      const keys = Buffer.concat([d.spendPublicKey, d.viewPublicKey]);
      const flags = d.flags ?? 0;
      const standard =
        flags === 0
          ? encodeZanoAddress(ZANO_ADDRESS_TAGS.standard, keys)
          : encodeZanoAddress(
              flags & 1 ? ZANO_ADDRESS_TAGS.auditable : ZANO_ADDRESS_TAGS.standard,
              Buffer.concat([keys, Buffer.of(flags)]),
            );
      return { standard_address: standard, payment_id: d.paymentId ? hex(d.paymentId) : '' };
    },

    get_recent_txs_and_info3: (p) => recentTxs(p, wti),
    get_recent_txs_and_info2: (p) => recentTxs(p, wtiV2),
    get_recent_txs_and_info: (p) => recentTxs(p, wtiOld),
    search_for_transactions2: (p) => searchTxs(p, wti),
    search_for_transactions: (p) => searchTxs(p, wtiOld),

    transfer: (p) => {
      const plan = planTransfer(p);
      const usedOutIds = plan.inputs.map((i) => BigInt(i.outId));
      if (watchOnly) {
        unsigned.set(plan.id, plan);
        for (const inp of plan.inputs) {
          const o = outputs.find((x) => x.outId === inp.outId);
          if (o) o.reservedBy = plan.id; // WALLET_TRANSFER_DETAIL_FLAG_COLD_SIG_RESERVATION
        }
        return { tx_hash: '', tx_unsigned_hex: toBlob('zano-mock-unsigned-tx', plan), tx_size: 0n, used_out_ids: usedOutIds };
      }
      const txHash = randomHex(32);
      const tx = relay(plan, txHash);
      submissions.push({ txHash, accepted: true });
      return { tx_hash: txHash, tx_unsigned_hex: '', tx_size: BigInt(tx.blobSize), tx_details: wti(tx), used_out_ids: usedOutIds };
    },

    sign_transfer: (p) => {
      const blob = str(p.tx_unsigned_hex);
      if (blob.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(blob))
        throw new RpcFailure(ZanoWalletErrorCode.WRONG_ARGUMENT, 'tx_unsigned_hex is invalid');
      const generic = (message: string, line: number) =>
        new RpcFailure(
          ZanoWalletErrorCode.GENERIC_TRANSFER_ERROR,
          `WALLET_RPC_ERROR_CODE_GENERIC_TRANSFER_ERROR: ${walletWhat('N5tools5error19wallet_common_errorE', message, line)}`,
        );
      if (watchOnly) throw generic('watch-only wallet is unable to sign transfers, you need to use normal wallet for that', 4246);
      const plan = fromBlob(blob, 'zano-mock-unsigned-tx') as Plan | undefined;
      if (!plan) throw generic('Failed to decrypt tx sources blob', 4254);
      if (plan.spendKey !== spendKeyHex) throw generic('The was created in a different wallet, keys missmatch', 4257);
      // Every signing makes a new tx: new hash, same key images (the docs warn not to sign one blob twice).
      const txHash = randomHex(32);
      return { tx_signed_hex: toBlob('zano-mock-signed-tx', { plan, txHash }), tx_hash: txHash };
    },

    submit_transfer: (p) => {
      const blob = str(p.tx_signed_hex);
      if (blob.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(blob))
        throw new RpcFailure(ZanoWalletErrorCode.WRONG_ARGUMENT, 'tx_signed_hex is invalid');
      const generic = (message: string, line: number) =>
        new RpcFailure(
          ZanoWalletErrorCode.GENERIC_TRANSFER_ERROR,
          `WALLET_RPC_ERROR_CODE_GENERIC_TRANSFER_ERROR: ${walletWhat('N5tools5error19wallet_common_errorE', message, line)}`,
        );
      if (!watchOnly) throw generic('submit_transfer should be called in watch-only wallet only', 4419);
      const signed = fromBlob(blob, 'zano-mock-signed-tx') as { plan: Plan; txHash: string } | undefined;
      if (!signed) throw generic('Failed to decrypt signed tx data', 4427);
      const { plan, txHash } = signed;
      const record = (error?: RpcFailure) => {
        submissions.push({ txHash, accepted: !error, error: error && { code: error.code, message: error.message } });
        if (error) throw error;
      };
      if (plan.spendKey !== spendKeyHex)
        record(generic(`The given tx was created in a different wallet, keys missmatch, tx hash: ${txHash}`, 4432));
      const conflict = keyImageConflict(
        plan.inputs.map((i) => i.keyImage),
        txHash,
      );
      if (conflict?.where === 'chain') {
        record(
          new RpcFailure(
            ZanoWalletErrorCode.KEY_IMAGE_ALREADY_SPENT,
            `submit_transfer seems to be abused: input key image ${conflict.keyImage} of tx ${txHash} is already spent, according to daemon`,
          ),
        );
      }
      if (conflict?.where === 'pool') {
        record(
          new RpcFailure(
            ZanoWalletErrorCode.GENERIC_TRANSFER_ERROR,
            `WALLET_RPC_ERROR_CODE_GENERIC_TRANSFER_ERROR: ${walletWhat('N5tools5error11tx_rejectedE', 'transaction was rejected by daemon', 4390)}, status = Failed, tx: {}`,
          ),
        );
      }
      if (!pool.some((t) => t.hash === txHash)) {
        relay(plan, txHash);
        unsigned.delete(plan.id);
      }
      record();
      return { tx_hash: txHash };
    },

    clear_utxo_cold_sig_reservation: () => {
      const affected = outputs.filter((o) => o.reservedBy && !o.spentBy);
      for (const o of affected) o.reservedBy = undefined;
      return { affected_outputs: affected.map((o) => ({ pk: o.pubKey })), status: 'OK' };
    },

    assets_whitelist_add: (p) => {
      const assetId = pod(p.asset_id, NULL_KEY);
      const info = known.get(assetId);
      if (!info) return { status: 'NOT_FOUND', asset_descriptor: assetJson(EMPTY_DESCRIPTOR) };
      if (assetId !== ZANO_ASSET_ID) localWhitelist.add(assetId);
      return { status: 'OK', asset_descriptor: assetJson(info) };
    },

    assets_whitelist_get: () => ({
      local_whitelist: [...localWhitelist].map((id) => assetWithIdJson(known.get(id)!)),
      global_whitelist: [...globalWhitelist].map((id) => assetWithIdJson(known.get(id)!)),
      own_assets: [],
    }),
  };

  function balanceJson(
    info: ZanoAssetInfo,
    e: { total: bigint; unlocked: bigint; awaitingIn: bigint; awaitingOut: bigint; outs: bigint[] },
  ) {
    const outs = e.outs;
    return {
      asset_info: assetWithIdJson(info),
      total: e.total,
      unlocked: e.unlocked,
      awaiting_in: e.awaitingIn,
      awaiting_out: e.awaitingOut,
      outs_count: BigInt(outs.length),
      outs_amount_min: outs.length ? outs.reduce((a, b) => (b < a ? b : a)) : 0n,
      outs_amount_max: outs.length ? outs.reduce((a, b) => (b > a ? b : a)) : 0n,
    };
  }

  // ------------------------------------------------------------------------------------------------ HTTP

  function answer(body: string): string {
    let request: unknown;
    try {
      request = parse(body, null, (text) => (isInteger(text) ? BigInt(text) : Number(text)));
    } catch {
      return stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }) ?? '';
    }
    const req = (typeof request === 'object' && request !== null && !Array.isArray(request) ? request : {}) as Record<string, unknown>;
    const id = req.id === undefined ? '' : req.id;
    const method = req.method;
    const fail = (code: number, message: string) => stringify({ jsonrpc: '2.0', id, error: { code, message } }) ?? '';
    if (typeof method !== 'string') return fail(-32600, 'Invalid Request');
    calls.push({ method, params: req.params });
    const handler = Object.prototype.hasOwnProperty.call(methods, method) ? methods[method] : undefined;
    if (!handler) return fail(-32601, 'Method not found');
    try {
      const injected = failures.get(method);
      if (injected) {
        failures.delete(method);
        throw new RpcFailure(injected.code, injected.message);
      }
      const params = obj(req.params);
      const result = dropEmpty(handler(params));
      return stringify({ id, jsonrpc: '2.0', result }) ?? '';
    } catch (e) {
      if (e instanceof RpcFailure) return fail(e.code, e.message);
      return fail(ZanoWalletErrorCode.GENERIC_ERROR, `WALLET_RPC_ERROR_CODE_GENERIC_ERROR: ${(e as Error).message}`);
    }
  }

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || (req.url ?? '').split('?')[0] !== '/json_rpc') {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      const text = answer(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200, { 'content-type': 'application/json' }).end(text);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  // ------------------------------------------------------------------------------------------------ controls

  const control: ZanoWalletControl = {
    account,
    address,
    watchOnly,
    height: () => top,
    mine(n = 1) {
      for (let i = 0; i < n; i++) {
        top += 1;
        if (i === 0) {
          for (const tx of pool.splice(0)) {
            tx.height = top;
            tx.timestamp = timestampAt(top);
            history.push(tx);
          }
        }
      }
      return top;
    },
    receive(o) {
      const payments: IncomingPayment[] = o.payments ?? [];
      if (o.amount !== undefined) payments.unshift({ paymentId: o.paymentId, assetId: o.assetId, amount: o.amount });
      if (payments.length === 0) throw new Error('receive: no amount');
      if (o.height !== undefined && (o.height > top || o.height < 1))
        throw new Error(`receive: height ${o.height} is not in the chain (top ${top})`);
      const txHash = randomHex(32);
      const tx: TxRecord = {
        hash: txHash,
        height: o.height ?? 0,
        timestamp: o.height === undefined ? 0 : timestampAt(o.height),
        unlockTime: BigInt(o.unlockTime ?? 0),
        fee: o.fee ?? ZANO_MIN_FEE,
        comment: o.comment ?? '',
        blobSize: 3206,
        txWidePaymentId: o.legacyTxWide ? (payments[0].paymentId ?? '').toLowerCase() : '',
        groups: [],
        receive: [],
        spent: [],
        remoteAddresses: o.remoteAddress ? [o.remoteAddress] : [],
        keyImages: [randomHex(32)],
      };
      payments.forEach((pay, index) => {
        const assetId = (pay.assetId ?? ZANO_ASSET_ID).toLowerCase();
        if (!known.has(assetId)) registerAsset({ ...o.assetInfo, asset_id: assetId });
        const pid = (o.legacyTxWide ? tx.txWidePaymentId : (pay.paymentId ?? '')).toLowerCase();
        if (!o.legacyTxWide && pid.length > 16) throw new Error('receive: an intrinsic payment id is at most 8 bytes (use legacyTxWide)');
        const intrinsic = o.legacyTxWide ? 0n : pidToU64(pid);
        let group = tx.groups.find((g) => g.paymentId === pid);
        if (!group) tx.groups.push((group = { paymentId: pid, subs: [] }));
        const sub = group.subs.find((s) => s.assetId === assetId);
        if (sub) sub.amount += pay.amount;
        else group.subs.push({ amount: pay.amount, assetId, isIncome: true });
        tx.receive.push({ index, amount: pay.amount, assetId, paymentId: intrinsic });
        outputs.push({
          outId: outputs.length,
          txHash,
          index,
          amount: pay.amount,
          assetId,
          keyImage: randomHex(32),
          pubKey: randomHex(32),
          paymentId: intrinsic,
        });
      });
      if (o.height === undefined) pool.push(tx);
      else {
        const at = history.findIndex((t) => t.height > tx.height);
        history.splice(at === -1 ? history.length : at, 0, tx);
      }
      return txHash;
    },
    reorg(txHash, opts = {}) {
      const inHistory = history.findIndex((t) => t.hash === txHash);
      const inPool = pool.findIndex((t) => t.hash === txHash);
      if (inHistory === -1 && inPool === -1) return false;
      const [tx] = inHistory !== -1 ? history.splice(inHistory, 1) : pool.splice(inPool, 1);
      if (opts.toPool) {
        tx.height = 0;
        tx.timestamp = 0;
        pool.push(tx);
        return true;
      }
      // Inputs it spent are unspent again; its own outputs stay in the list (out ids are indexes) but never count.
      for (const o of outputs) if (o.spentBy === txHash) o.spentBy = undefined;
      for (const o of outputs) if (o.txHash === txHash) o.spentBy = 'reorganized';
      return true;
    },
    registerAsset,
    balance(assetId = ZANO_ASSET_ID) {
      const e = balances().get(assetId);
      return { total: e?.total ?? 0n, unlocked: e?.unlocked ?? 0n, awaitingIn: e?.awaitingIn ?? 0n, awaitingOut: e?.awaitingOut ?? 0n };
    },
    get submissions() {
      return submissions;
    },
    get calls() {
      return calls;
    },
    confirmations(txHash) {
      const tx = history.find((t) => t.hash === txHash);
      return tx ? top - tx.height : null;
    },
    failNext(method, error) {
      failures.set(method, error);
    },
  };

  return {
    url: `http://127.0.0.1:${port}/json_rpc`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
    control,
  };
}

/** A default-initialized asset_descriptor_base (what NOT_FOUND answers carry). */
const EMPTY_DESCRIPTOR: ZanoAssetInfo = {
  asset_id: NULL_KEY,
  total_max_supply: 0n,
  current_supply: 0n,
  decimal_point: 0,
  ticker: '',
  full_name: '',
  meta_info: '',
  owner: NULL_KEY,
  hidden_supply: false,
  owner_eth_pub_key: '',
};
