/**
 * What a node's refusal of `eth_sendRawTransaction` proves. Nodes word their errors differently (geth, anvil,
 * BSC's geth fork, Erigon, Nethermind, hosted gateways), so a message is matched loosely and anything not
 * recognised proves nothing: the caller treats it as ambiguous.
 */

/** The meaning of a refusal. */
export type BroadcastRefusal =
  /** The node holds the same transaction already: accepted. */
  | 'known'
  /** The account's nonce is past ours: accepted if our transaction is the one mined, else refused. */
  | 'nonce-too-low'
  /** Proves the transaction was not taken, for a reason that can pass (fees, a full pool, funds): build it again later. */
  | 'passing'
  /** Proves the transaction was not taken, and never will be as it is (a bad signature, chain id, gas limit). */
  | 'rejected'
  /** Proves nothing (another transaction with our nonce waits in the pool, or an unknown error). */
  | 'ambiguous';

const KNOWN = [/already known/i, /known transaction/i, /already imported/i, /already exists?/i, /alreadyknown/i];
const NONCE_TOO_LOW = [/nonce too low/i, /nonce has already been used/i, /oldnonce/i, /too stale nonce/i];
// Matched before the rejections: "replacement transaction underpriced" contains "underpriced".
const AMBIGUOUS = [/replacement/i, /already in (the )?(pool|mempool)/i, /same nonce/i];
// Refusals that pass as the chain moves on: the hot wallet is funded, the base fee falls, the pool drains. The
// payout is signed again later at the fees of then (DFX.swiss and Boltz retry these; geth's txpool errors).
const PASSING = [
  /insufficient funds/i,
  /insufficient balance/i,
  /gas limit reached/i,
  /transaction underpriced/i,
  /max fee per gas less than block base fee/i,
  /fee cap less than block base fee/i,
  /txpool is full/i,
  /pool is full/i,
  /too many (pending )?transactions/i,
  /account limit exceeded/i,
];
const REJECTED = [
  /intrinsic gas too low/i,
  /exceeds block gas limit/i,
  /invalid sender/i,
  /invalid signature/i,
  /max priority fee per gas higher than max fee per gas/i,
  /tip (is )?(higher|above) than fee ?cap/i,
  /exceeds the configured cap/i,
  /invalid chain ?id/i,
  /incorrect chain ?id/i,
  /transaction type not supported/i,
  /oversized data/i,
  /rlp/i,
];

/** What the node's error `message` to a broadcast proves. */
export function classifyBroadcastRefusal(message: string): BroadcastRefusal {
  if (KNOWN.some((pattern) => pattern.test(message))) return 'known';
  if (NONCE_TOO_LOW.some((pattern) => pattern.test(message))) return 'nonce-too-low';
  if (AMBIGUOUS.some((pattern) => pattern.test(message))) return 'ambiguous';
  if (PASSING.some((pattern) => pattern.test(message))) return 'passing';
  if (REJECTED.some((pattern) => pattern.test(message))) return 'rejected';
  return 'ambiguous';
}
