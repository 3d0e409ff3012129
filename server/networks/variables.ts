/**
 * Production configuration variables several families share (`<NET>_RPC_URL`, `<NET>_CONFIRMATIONS`, ...): each
 * with the check that refuses a malformed value in words that name the variable. Pure: a check reads the value
 * and, through its context, the network's other variables and its address rules; server/production-config.ts
 * runs them.
 */
import type { ConfigVariable } from './network.js';

const quoted = (name: string, value: string) => `${name}=${JSON.stringify(value)}`;

/** An http(s) URL. */
export function urlVariable(suffix: string, meaning: string): ConfigVariable {
  return {
    suffix,
    meaning,
    required: true,
    check: (value, name) => (/^https?:\/\/[^\s]+$/.test(value) ? undefined : `${quoted(name, value)} must be an http(s) URL`),
  };
}

/** A whole number of `what` of at least 1. */
export function countVariable(suffix: string, meaning: string, what: string, fallback?: (network: string) => string): ConfigVariable {
  return {
    suffix,
    meaning,
    ...(fallback ? { default: fallback } : {}),
    check: (value, name) =>
      /^\d{1,7}$/.test(value) && Number(value) >= 1 ? undefined : `${quoted(name, value)} must be a whole number of ${what} of at least 1`,
  };
}

/** A positive decimal of the shape `shape`, described as `what` (e.g. "a fee in gwei per gas above 0, e.g. 500"). */
export function decimalVariable(suffix: string, meaning: string, fallback: string, shape: RegExp, what: string): ConfigVariable {
  return {
    suffix,
    meaning,
    default: fallback,
    check: (value, name) => (shape.test(value) && /[1-9]/.test(value) ? undefined : `${quoted(name, value)} must be ${what}`),
  };
}

/** `<NET>_CONFIRMATIONS`: overrides the network's deposit confirmations. */
export const CONFIRMATIONS = countVariable('CONFIRMATIONS', "the confirmations a deposit needs (default: the network's)", 'confirmations');

/** `<NET>_MAX_TIP_AGE_SECONDS`: a tip older than this makes the network unhealthy. */
export const MAX_TIP_AGE_SECONDS = countVariable(
  'MAX_TIP_AGE_SECONDS',
  "how old the node's tip may be before the network is unhealthy (default: ten block times)",
  'seconds',
);

/** `<NET>_SCAN_SECONDS`: how often the watcher asks the node (regtest and devnets). */
export const SCAN_SECONDS = countVariable('SCAN_SECONDS', "how often the watcher asks the node (default: the adapter's pace)", 'seconds');

/** `<NET>_COLD_ADDRESS`: where a hot wallet's surplus above HOT_WALLET_MAX goes, checked as a payout address is. */
export const COLD_ADDRESS: ConfigVariable = {
  suffix: 'COLD_ADDRESS',
  meaning: "where the hot wallet's surplus above HOT_WALLET_MAX goes (unset: it stays, with an alert)",
  check: (value, name, context) => {
    const problem = context.addressProblem(value);
    return problem === undefined ? undefined : `${quoted(name, value)}: ${problem}`;
  },
};

/**
 * `<NET>_HOLD_UNMINED_SECONDS`: where the family has no fee bumping (Monero), how long a payout may stay in no
 * block after its broadcast before it is held for an operator (default: thirty block times).
 */
export const HOLD_UNMINED_SECONDS = countVariable(
  'HOLD_UNMINED_SECONDS',
  'how long a payout may stay in no block after its broadcast before it is held for an operator (no fee bumping; default: thirty block times)',
  'seconds',
);

/** `<NET>_REPLACE_AFTER_SECONDS`: how long an unmined payout waits before it is replaced at a higher fee. */
export function replaceAfterVariable(fallback: (network: string) => string): ConfigVariable {
  return countVariable(
    'REPLACE_AFTER_SECONDS',
    'seconds an unmined payout waits after its last broadcast before it is replaced at a higher fee',
    'seconds',
    fallback,
  );
}

/** The variables of payout batching, which only the Bitcoin family has (see BITCOIN_FAMILY); refused elsewhere. */
export const BATCH_SUFFIXES = ['PAYOUT_BATCH_SECONDS', 'PAYOUT_BATCH_MAX'] as const;

/** The refusal of the batching variables on a family that sends each payout in a transaction of its own. */
export function noBatching(family: string): { suffix: string; reason: (network: string) => string }[] {
  return BATCH_SUFFIXES.map((suffix) => ({
    suffix,
    reason: (network: string) =>
      `${network}_${suffix} is for Bitcoin-family networks (LTC, BTC): ${network} (${family}) sends each payout in a transaction of its own; unset it`,
  }));
}
