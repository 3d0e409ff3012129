/**
 * The chains behind three roles per network (docs/architecture.md#production): an address source, a chain watcher and a payout
 * sender. They talk to the outside world only: none takes a database handle, and none is ever called inside
 * a database transaction. The core around them (the chain ledger, the payout outbox, the swap services)
 * decides what to do with what they say.
 *
 * Each family lives in a folder of its own (adapters/sandbox/ is the simulated chain); the registry of the
 * running configuration is built once, in main.ts, and names the adapters of every network it serves.
 */
import type { CatalogAsset } from '../domain/catalog.js';

/** A block: its height and hash. */
export interface BlockRef {
  height: number;
  hash: string;
}

/** A transaction output paid to a watched address, as the chain shows it now. */
export interface ObservedOutput {
  txHash: string;
  outputIndex: number;
  address: string;
  /** The memo (destination tag, comment) it carries, where the network has them. */
  memo: string | null;
  asset: string;
  /** In units of the asset (a decimal string). */
  amount: string;
  /** The paying address where the network names a single sender, else null. */
  fromAddress: string | null;
  /** The block it is mined in; null while unconfirmed. */
  block: BlockRef | null;
  /** When the chain first showed it. */
  seenAt: Date;
  /**
   * Set when the output cannot be credited as it is (an asset the service does not know, a time lock): it is
   * recorded as held, with this reason in words for an operator, and no swap or route credits it.
   */
  heldReason?: string;
}

/** A payout or refund of ours, seen on the chain. */
export interface ObservedPayout {
  txHash: string;
  block: BlockRef | null;
  /** Mined but failed (an EVM transaction that reverted): the payment did not happen. */
  failed?: boolean;
  /** The EVM nonce it used (EVM watchers; the core ties a mined hash to the payout that holds the nonce). */
  nonce?: number;
}

/** What one scan read: from the stored position to the tip. */
export interface ChainScan {
  /** The chain's tip now. */
  tip: BlockRef;
  /** Where the next scan starts (opaque to the core; stored with the tip). */
  position: string;
  /** Outputs new since the position, or whose block changed. */
  outputs: ObservedOutput[];
  /** Outputs a reorganisation took out of the chain since the position. */
  removed: Array<{ txHash: string; outputIndex: number }>;
  /** Our payouts whose block is known or changed since the position. */
  payouts: ObservedPayout[];
  /** The chain has more past `position` that it could not report yet: scan again soon. */
  behind?: boolean;
}

/** Where a watcher read to last time (null: never scanned). */
export interface ScanCursor {
  tip: BlockRef;
  position: string | null;
}

/**
 * Which of `candidates` (addresses a block pays) are deposit addresses of ours: the core answers from the
 * database in one read. A watcher whose node already knows the watched addresses (a Bitcoin Core watch-only
 * wallet, the simulated chain) need not ask.
 */
export type WatchFilter = (candidates: string[]) => Promise<ReadonlySet<string>>;

/** The chain's tip as a node sees it, for health. */
export interface ChainTip extends BlockRef {
  /** The tip block's timestamp. */
  time: Date;
}

/** Reads the chain: one scan serves every watched address of the network. */
export interface ChainWatcher {
  /**
   * What changed since `cursor`. A reorganisation is told by block hash: when the cursor's block is no longer
   * in the chain, the outputs of the removed blocks come back in `removed`.
   */
  scan(cursor: ScanCursor | null, watched: WatchFilter): Promise<ChainScan>;
  /** The node's tip now; throws when the node does not answer. */
  tip(): Promise<ChainTip>;
  /** How long to wait between scans while nothing is pending (deposits or payouts confirming). */
  idleScanMs: number;
  /** How long to wait between scans while something is confirming: about a block. */
  busyScanMs: number;
}

/** What a deposit address is for: a key (a swap id or route allocation), and its index on request. */
export interface AddressRequest {
  key: string;
  /**
   * The number the core allocates once per key (from a database sequence: never reused, with gaps), the
   * derivation index of an address derived from an extended public key. Allocated on the first call only:
   * a source that does not derive never calls it, and costs the database nothing.
   */
  index(): Promise<number>;
}

/** Gives deposit addresses. */
export interface AddressSource {
  /**
   * The deposit address (and memo, where the asset needs one) of `request`, always the same for the same
   * request. Where the node must know an address before it is paid (a watch-only wallet), it is told here,
   * before the address is returned.
   */
  depositAddress(asset: CatalogAsset, request: AddressRequest): Promise<{ address: string; memo: string | null }>;
}

/** A payout or refund to send, as the outbox fixed it. */
export interface PayoutOrder {
  /** Unique per payment: the outbox's idempotency key. */
  key: string;
  /** The swap it pays for; null for a cold transfer (a hot wallet's surplus to its cold address). */
  swapId: string | null;
  asset: CatalogAsset;
  address: string;
  memo: string | null;
  amount: string;
}

/** A payout built and signed: its hash is known before it is broadcast. */
export interface SignedPayout {
  txHash: string;
  /** The signed transaction (hex or the family's encoding): a retry broadcasts these bytes again. */
  bytes: string;
  /**
   * The fee it offers, in the family's terms (EVM: max fee per gas in gwei; Bitcoin family: coin per kvB, of
   * the package with its ancestors for a boost), as a decimal string; absent where the family has no fee market
   * (Zano's fee is fixed).
   */
  fee?: string;
  /**
   * `boost`: not a version of the payment but a child that pays for it (CPFP: it spends the payout's change, or
   * the last boost's output, to the hot wallet, its fee raising the package's rate). A boost never becomes the
   * payout's hash; the payment it pays for does.
   */
  kind?: 'payment' | 'boost';
}

/** A batch built and signed: one transaction paying several orders, each at its own output. */
export interface SignedBatch extends SignedPayout {
  /** The output index paying each order, by order key (empty for a boost: it pays none of them). */
  outputs: Record<string, number>;
}

/** What `prepareBatch` made of a list of orders. */
export interface PreparedBatch {
  /** The transaction paying every order not excluded; null when every order was excluded. */
  signed: SignedBatch | null;
  /**
   * Orders left out, each with why it cannot be built (as `prepare` would have thrown it for that order alone):
   * a destination the node refuses, an amount below dust. The others never wait for them.
   */
  excluded: Array<{ key: string; error: PayoutBuildError }>;
}

/** The answer to a broadcast. */
export type BroadcastOutcome =
  /** The chain has it (now, or already: the same bytes again are no second payment). */
  | { kind: 'accepted' }
  /**
   * The chain refused it in a way that proves it was never taken. `passing`: the reason can pass (the fee is
   * below what the node takes now, its mempool is full, the funds are not there yet): the payment is built
   * again later. Otherwise it never will be taken as it is (an invalid destination, a transfer that reverts).
   */
  | {
      kind: 'rejected';
      reason: string;
      passing: boolean;
      /**
       * The refusal proves a conflicting transaction took the payment's place (its inputs spent by another
       * transaction that is not it): even bytes that may have gone out before can never be mined.
       */
      conflict?: boolean;
    };

/** Raised for a broadcast whose outcome is unknown (a timeout, a dropped connection, an unknown error). */
export class AmbiguousBroadcastError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AmbiguousBroadcastError';
  }
}

/**
 * Raised by `prepare` for a payout that cannot be built as things stand: `passing` when it may be later (the
 * hot wallet lacks the funds now), not when it never will (a destination the node calls invalid, a transfer
 * whose gas estimate reverts, an amount below dust). A node that does not answer is a plain error instead.
 */
export class PayoutBuildError extends Error {
  constructor(
    message: string,
    readonly passing: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'PayoutBuildError';
  }
}

/** Sends payouts: prepare (build and sign), then broadcast the same bytes as often as needed. */
export interface PayoutSender {
  /**
   * Builds and signs `order`. Asked twice for the same order key (two senders at once, or a retry before the
   * first result was committed), it may sign twice, but only one result is ever committed and broadcast; what
   * the other reserved (inputs, a nonce) must not stay reserved by it forever.
   */
  prepare(order: PayoutOrder): Promise<SignedPayout>;
  /** Broadcasts `signed`; idempotent. Throws AmbiguousBroadcastError when the outcome is unknown. */
  broadcast(order: PayoutOrder, signed: SignedPayout): Promise<BroadcastOutcome>;
  /**
   * A new version of the payout whose versions so far are `versions` (oldest first, boosts among them),
   * paying exactly the same outputs and amounts, and conflicting with every earlier version (Bitcoin family:
   * BIP125, the same inputs; EVM: the same nonce), at a fee priced from the chain's level now and at least the
   * node's replacement minimum above the last; never above the network's fee cap. Where the node accepts no
   * replacement (Litecoin Core), a boost instead (`kind: 'boost'`, CPFP). Null when the cap leaves no room above
   * the last version. Absent on a family without a fee market.
   */
  replace?(order: PayoutOrder, versions: SignedPayout[]): Promise<SignedPayout | null>;
  /**
   * EVM: a zero-value transfer from the hot wallet to itself at the nonce of `versions`, priced to replace every
   * one of them: once it is mined, nothing of the payout was paid and the nonce no longer stalls later payouts.
   */
  cancel?(order: PayoutOrder, versions: SignedPayout[]): Promise<SignedPayout>;
  /**
   * EVM: the hot wallet's nonce state: the count of its mined transactions, and the nonces the allocator
   * holds at or above it, each with its key. The core cancels the nonce of a payout held for an operator and
   * fills a nonce no key holds below a held one, so later payouts never stall behind it.
   */
  nonces?(): Promise<{ mined: number; held: Array<{ nonce: number; key: string }> }>;
  /** EVM: signs and broadcasts a zero-value self-transfer at `nonce` (a nonce no payout holds), priced now. */
  fillNonce?(nonce: number): Promise<string>;
  /**
   * Monero: whether the wallet knows `txHash` as mined (in a block, not failed), asked before a payout is held
   * for staying out of blocks: the watcher may not have recorded its block yet.
   */
  mined?(txHash: string): Promise<boolean>;
  /**
   * Bitcoin family (batched payouts, `<NET>_PAYOUT_BATCH_SECONDS`): builds and signs one transaction paying every
   * order of `orders` (distinct addresses; at most one output each, plus change). An order that cannot be built
   * for a reason of its own (its destination, its amount) is excluded and named, and the rest are built; a
   * reason of the whole (the hot wallet lacks the funds) throws PayoutBuildError, as `prepare` does.
   */
  prepareBatch?(orders: PayoutOrder[]): Promise<PreparedBatch>;
  /**
   * As `replace`, for a batch paying `orders` whose versions so far are `versions`: a replacement pays exactly
   * the same outputs (checked: every order's address and amount), a boost (CPFP) pays for the batch from its
   * change. Null at the fee cap.
   */
  replaceBatch?(orders: PayoutOrder[], versions: SignedPayout[]): Promise<SignedBatch | null>;
  /** Releases what a prepared transaction reserved (inputs) when it will never be stored nor broadcast. */
  discard?(signed: SignedPayout): Promise<void>;
  /**
   * What the hot wallet can pay in `asset` now (a decimal string in units of the asset): confirmed and
   * unlocked funds, less what the wallet itself holds back. The core subtracts open payouts and reservations.
   */
  spendable(asset: CatalogAsset): Promise<string>;
  /** What a payout of `asset` costs in fees now, in units of the network's native asset (a decimal string). */
  feeEstimate(asset: CatalogAsset): Promise<string>;
}

/** The three roles of one network. */
export interface NetworkAdapters {
  addresses: AddressSource;
  watcher: ChainWatcher;
  sender: PayoutSender;
  /** Confirmations a payout of ours needs before its swap is finished. */
  payoutConfirmations: number;
  /**
   * When an unmined payout is replaced at a higher fee (seconds after its last version's broadcast), and
   * the fee cap in the family's terms (`<NET>_REPLACE_AFTER_SECONDS`, `<NET>_MAX_FEE_RATE` / `_MAX_FEE_GWEI`);
   * absent where the family has no fee market.
   */
  replaceAfterSeconds?: number;
  /**
   * Where the family has no fee bumping (Monero): a payout in no block this long after its broadcast is held for
   * an operator (`<NET>_HOLD_UNMINED_SECONDS`), instead of only being broadcast again. Absent: never held for it.
   */
  holdUnminedAfterSeconds?: number;
  /**
   * A mined transaction may still have paid nothing (EVM: a reverted receipt): a refund counts as made only
   * once a block holds it with a successful receipt, not when the chain accepted its broadcast.
   */
  revertible?: boolean;
}

/** The adapters of every network the running configuration serves. */
export interface AdapterRegistry {
  /** The networks served, in catalogue order. */
  readonly networks: readonly string[];
  /** The adapters of `network`; throws for a network not served. */
  of(network: string): NetworkAdapters;
}

/** A registry over `adapters` (network code to its adapters). */
export function createAdapterRegistry(adapters: Record<string, NetworkAdapters>): AdapterRegistry {
  const networks = Object.freeze(Object.keys(adapters));
  return {
    networks,
    of(network) {
      const found = adapters[network];
      if (!found) throw new Error(`no adapters for network ${network}`);
      return found;
    },
  };
}
