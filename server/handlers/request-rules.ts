/**
 * Checks shared by POST /quotes and POST /swaps that the schema cannot express: the pair exists, the amount
 * fits the source asset's precision, and addresses and memos are valid for their networks. Each failure is
 * the specific 4xx a partner can act on.
 */
import { findAsset, type Catalog, type CatalogAsset } from '../domain/catalog.js';
import { validateAddress, validateMemo } from '../domain/addresses.js';
import { AppError, invalidRequest } from '../domain/errors.js';
import { toAmount, type Amount } from '../domain/money.js';
import { senderKnownOn } from '../networks/index.js';

/** The two assets of a pair, or 409 pair_unavailable. */
export function resolvePair(
  catalog: Catalog,
  pair: { sourceAsset: string; sourceNetwork: string; destinationAsset: string; destinationNetwork: string },
): { source: CatalogAsset; destination: CatalogAsset } {
  const source = findAsset(catalog, pair.sourceAsset, pair.sourceNetwork);
  const destination = findAsset(catalog, pair.destinationAsset, pair.destinationNetwork);
  if (!source || !destination || (source.symbol === destination.symbol && source.network === destination.network)) {
    throw new AppError(
      409,
      'pair_unavailable',
      `${pair.sourceAsset} on ${pair.sourceNetwork} to ${pair.destinationAsset} on ${pair.destinationNetwork} is not available; GET /pairs lists the pairs.`,
    );
  }
  return { source, destination };
}

/** The amount as a decimal, refused when it has more fraction digits than the asset's smallest unit. */
export function parseSourceAmount(value: string, source: CatalogAsset): Amount {
  return parseAmountOf(value, source, 'sourceAmount');
}

/** `field`'s amount `value` of `asset`, refused (400) with more decimal places than the asset's precision. */
export function parseAmountOf(value: string, asset: CatalogAsset, field: string): Amount {
  const amount = toAmount(value);
  if (amount.decimalPlaces() > asset.precision) {
    throw invalidRequest(`${field} has more than ${asset.precision} decimal places, the precision of ${asset.symbol}.`, {
      field,
      precision: asset.precision,
    });
  }
  return amount;
}

/** An empty or absent optional text field means "none". */
export const blankToNull = (value: string | undefined | null): string | null =>
  value === undefined || value === null || value === '' ? null : value;

/** The refund fields, normalised and checked against the source network. */
export function checkRefund(
  source: CatalogAsset,
  fields: { refundMode: 'sender' | 'address'; refundAddress?: string; refundMemo?: string },
): { refundAddress: string | null; refundMemo: string | null } {
  const address = blankToNull(fields.refundAddress);
  if (fields.refundMode === 'sender') {
    if (address !== null || blankToNull(fields.refundMemo) !== null) {
      throw invalidRequest('refundAddress and refundMemo are used only with refundMode address; refunds now go back to the sender.', {
        field: address !== null ? 'refundAddress' : 'refundMemo',
      });
    }
    // A deposit on a memo network arrives from a shared exchange or custody address more often than not;
    // a refund sent there without the customer's memo cannot be credited to anyone (docs/architecture.md#every-payment-accounted-for).
    if (source.memoNeeded) {
      throw new AppError(
        400,
        'invalid_refund_address',
        `refundMode sender is not available for ${source.symbol} on ${source.network}: a refund there needs the customer's ${source.memoName ?? 'memo'}, which the deposit does not carry. Give refundMode address with refundAddress and refundMemo.`,
        { field: 'refundMode', network: source.network, memoName: source.memoName ?? 'Memo' },
      );
    }
    // Zano and Monero hide who sent a transaction (the table of networks: senderKnown); a Zano wallet's
    // remote_addresses is only what the sender chose to show, and a refund sent there on its word could go to anyone.
    if (!senderKnownOn(source.network)) {
      throw new AppError(
        400,
        'invalid_refund_address',
        `refundMode sender is not available for ${source.symbol} on ${source.network}: its transactions do not reveal their sender, so a refund has nowhere safe to go. Give refundMode address with refundAddress.`,
        { field: 'refundMode', network: source.network },
      );
    }
    return { refundAddress: null, refundMemo: null };
  }
  if (address === null) {
    throw new AppError(400, 'invalid_refund_address', 'refundAddress is required when refundMode is address.', { field: 'refundAddress' });
  }
  const checked = validateAddress(source.network, address, source.chain);
  if (!checked.ok) {
    throw new AppError(400, 'invalid_refund_address', `refundAddress is not a valid ${source.network} address: ${checked.reason}`, {
      field: 'refundAddress',
      network: source.network,
    });
  }
  return { refundAddress: address, refundMemo: checkMemo(source, fields.refundMemo, 'refundMemo') };
}

/** The destination fields, checked against the destination network. */
export function checkDestination(
  destination: CatalogAsset,
  fields: { destinationAddress: string; destinationMemo?: string },
): { destination: string; destinationMemo: string | null } {
  const checked = validateAddress(destination.network, fields.destinationAddress, destination.chain);
  if (!checked.ok) {
    throw new AppError(400, 'invalid_destination', `destinationAddress is not a valid ${destination.network} address: ${checked.reason}`, {
      field: 'destinationAddress',
      network: destination.network,
    });
  }
  const destinationMemo = checkMemo(destination, fields.destinationMemo, 'destinationMemo');
  // A payout without the memo its network needs can be lost (an exchange's shared XRP account), so it is required.
  if (destination.memoNeeded && destinationMemo === null) {
    throw new AppError(
      400,
      'invalid_memo',
      `${destination.symbol} on ${destination.network} needs a ${destination.memoName ?? 'memo'} in destinationMemo.`,
      { field: 'destinationMemo', network: destination.network },
    );
  }
  return { destination: fields.destinationAddress, destinationMemo };
}

function checkMemo(asset: CatalogAsset, memo: string | undefined, field: string): string | null {
  const checked = validateMemo(asset, memo);
  if (!checked.ok) {
    throw new AppError(400, 'invalid_memo', `${field}: ${checked.reason}`, { field, network: asset.network });
  }
  return checked.value;
}
