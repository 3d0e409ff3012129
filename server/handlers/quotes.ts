/** POST /quotes: an executable quote for a pair and amount, persisted and bound to the partner (docs/architecture.md#quotes). */
import { estimatedMinutes } from '../domain/catalog.js';
import { AppError, invalidRequest } from '../domain/errors.js';
import { formatDown, Money, type Amount } from '../domain/money.js';
import {
  bestTerms,
  destinationLimits,
  priceExactOutput,
  priceTerms,
  rateTypesOf,
  sourceLimits,
  type PricedTerms,
} from '../domain/pricing.js';
import type { Handlers } from '../http/handler-types.js';
import { transaction } from '../store/after-commit.js';
import { createQuoteWriter, insertQuote, type IssuedQuotes, type NewQuote } from '../store/quotes.js';
import type { HandlerDeps } from './deps.js';
import { requirePartner } from './partner.js';
import { checkRefund, parseAmountOf, parseSourceAmount, resolvePair } from './request-rules.js';

/** Handler for createQuote; every quote stored is kept in `issued` for the swap created from it. */
export function createQuoteHandlers(deps: HandlerDeps, issued: IssuedQuotes): Pick<Handlers, 'createQuote'> {
  const writeQuote = createQuoteWriter(deps.knex);
  return {
    async createQuote({ partner, body }) {
      const { partnerId } = requirePartner(partner);
      const { source, destination } = resolvePair(deps.catalog, body);
      // Exactly one side is given: what the customer sends, or (exact output) what they receive.
      if ((body.sourceAmount === undefined) === (body.destinationAmount === undefined)) {
        throw invalidRequest('Give exactly one of sourceAmount (what the customer sends) and destinationAmount (what they receive).', {
          field: body.sourceAmount === undefined ? 'sourceAmount' : 'destinationAmount',
        });
      }
      const exactOutput =
        body.destinationAmount === undefined ? undefined : parseAmountOf(body.destinationAmount, destination, 'destinationAmount');
      const refund = checkRefund(source, body);
      const requested = body.rateType ?? 'best';
      const offered = rateTypesOf(source, destination);
      // Only a fixed rate can promise an exact output.
      if (exactOutput && (requested === 'floating' || !offered.includes('fixed'))) {
        throw new AppError(
          409,
          'rate_type_unavailable',
          `An exact output (destinationAmount) needs a fixed rate, and ${requested === 'floating' ? 'rateType floating was asked for' : 'this pair offers only a floating one'}; give sourceAmount instead.`,
          { rateTypes: offered },
        );
      }
      if (requested !== 'best' && !offered.includes(requested)) {
        throw new AppError(
          409,
          'rate_type_unavailable',
          `A ${requested} rate is not available for this pair; it offers ${offered.join(' and ')}.`,
          {
            rateTypes: offered,
          },
        );
      }

      deps.networkStatus?.requireHealthy(source.network);
      deps.networkStatus?.requireHealthy(destination.network);
      // A refund address screening does not allow is refused before anything is priced or reserved.
      if (refund.refundAddress !== null) {
        await deps.screening?.requireAllowed(
          [{ field: 'refundAddress', network: source.network, address: refund.refundAddress, role: 'refund' }],
          { operation: 'createQuote', partnerId },
        );
      }
      const at = deps.now();
      const [sourcePriceUsd, destinationPriceUsd] = await Promise.all([
        deps.rates.priceUsd(source.symbol, source.network, at),
        deps.rates.priceUsd(destination.symbol, destination.network, at),
      ]);

      // Checks the amount against the pair's limits (the maximum bounded by `payable`, what the hot wallet can
      // still promise this partner, when it is bounded) and prices it.
      const exact =
        exactOutput &&
        priceExactOutput(deps.catalog, { source, destination, destinationAmount: exactOutput, sourcePriceUsd, destinationPriceUsd });
      const sourceAmount = exact ? new Money(exact.sourceAmount) : parseSourceAmount(body.sourceAmount!, source);
      // The side the request named, for the messages.
      const asked = exactOutput
        ? { field: 'destinationAmount', of: `a deposit of ${sourceAmount.toFixed()} ${source.symbol}` }
        : { field: 'sourceAmount', of: undefined };
      const terms = (payable: Amount | undefined): NewQuote => {
        const limits = sourceLimits(deps.catalog, source, sourcePriceUsd);
        if (payable !== undefined) {
          // What the hot wallet can still pay, valued in the source asset.
          const payableSource = formatDown(payable.times(destinationPriceUsd).div(sourcePriceUsd), source.precision);
          if (new Money(payableSource).lessThan(limits.minimumSourceAmount)) {
            throw new AppError(
              409,
              'pair_unavailable',
              `The service cannot pay out ${destination.symbol} on ${destination.network} now: what its hot wallet can still promise is less than a minimum swap needs. Try again later or another pair.`,
            );
          }
          if (new Money(payableSource).lessThan(limits.maximumSourceAmount)) limits.maximumSourceAmount = payableSource;
        }
        // The limits in both assets: the source's are the ones a deposit is held to; the destination's are
        // what the same USD limits pay out before fees, for an exact output.
        const bounds = { ...limits, ...destinationLimits(deps.catalog, destination, destinationPriceUsd) };
        const outOfRange = (code: 'amount_below_minimum' | 'amount_above_maximum', message: string) =>
          new AppError(409, code, message, bounds);
        const named = asked.of ? `${asked.field} (${asked.of})` : asked.field;
        if (sourceAmount.lessThan(limits.minimumSourceAmount)) {
          throw outOfRange(
            'amount_below_minimum',
            `${named} is below the minimum of ${limits.minimumSourceAmount} ${source.symbol} (${bounds.minimumDestinationAmount} ${destination.symbol}) for this pair.`,
          );
        }
        if (sourceAmount.greaterThan(limits.maximumSourceAmount)) {
          throw outOfRange(
            'amount_above_maximum',
            `${named} is above the maximum of ${limits.maximumSourceAmount} ${source.symbol} (${bounds.maximumDestinationAmount} ${destination.symbol}) for this pair.`,
          );
        }

        const price = (rateType: 'fixed' | 'floating'): PricedTerms =>
          priceTerms(deps.catalog, { destination, sourceAmount, sourcePriceUsd, destinationPriceUsd, rateType });
        const priced = exact ? exact.terms : requested === 'best' ? bestTerms(offered.map(price)) : price(requested);
        if (priced.receiveAmount === '0') {
          throw outOfRange(
            'amount_below_minimum',
            `sourceAmount does not cover the fees of this pair; send at least ${limits.minimumSourceAmount} ${source.symbol}.`,
          );
        }
        const reservedAmount =
          payable === undefined ? null : (deps.liquidity?.reservationOf(destination, priced.receiveAmount, priced.rateType) ?? null);
        // A floating quote reserves more than it quotes (its slippage bound): that too must fit.
        if (payable !== undefined && reservedAmount !== null && payable.lessThan(reservedAmount)) {
          throw outOfRange(
            'amount_above_maximum',
            `${named} is above what the hot wallet can still promise at a ${priced.rateType} rate for this pair; send less than ${limits.maximumSourceAmount} ${source.symbol}.`,
          );
        }
        return {
          partnerId,
          sourceAsset: source.symbol,
          sourceNetwork: source.network,
          destinationAsset: destination.symbol,
          destinationNetwork: destination.network,
          sourceAmount: sourceAmount.toFixed(),
          // Fees come out of the receive amount, so the customer deposits exactly the amount quoted.
          depositAmount: sourceAmount.toFixed(),
          receiveAmount: priced.receiveAmount,
          minimumReceiveAmount: priced.minimumReceiveAmount,
          feeUsd: priced.feeUsd,
          rate: priced.rate,
          rateType: priced.rateType,
          minimumSourceAmount: limits.minimumSourceAmount,
          maximumSourceAmount: limits.maximumSourceAmount,
          estimatedMinutes: estimatedMinutes(deps.catalog, source),
          // A fixed rate cannot be honoured after the deadline; a floating one simply takes the market then.
          lateDepositPolicy: priced.rateType === 'fixed' ? 'refund' : 'market_rate',
          refundMode: body.refundMode,
          ...refund,
          expiresAt: new Date(at.getTime() + deps.config.quoteTtlSeconds * 1000),
          reservedAmount,
        };
      };

      const liquidity = deps.liquidity;
      // The sandbox's hot wallet pays anything: its quotes are written in groups. In production the check and
      // the quote's reservation are one transaction holding the destination asset's lock (services/liquidity.ts).
      const quote = liquidity
        ? await transaction(deps.knex, async (trx) => {
            const room = await liquidity.lock(trx, destination, at, { partnerId });
            return insertQuote(trx, terms(room.forPartner));
          })
        : await writeQuote(terms(undefined));
      issued.add(quote);
      return {
        status: 200,
        body: {
          quote: {
            id: quote.id,
            sourceAmount: quote.sourceAmount,
            depositAmount: quote.depositAmount,
            receiveAmount: quote.receiveAmount,
            minimumReceiveAmount: quote.minimumReceiveAmount,
            feeUsd: quote.feeUsd,
            rate: quote.rate,
            expiresAt: quote.expiresAt.toISOString(),
            rateType: quote.rateType,
            minimumSourceAmount: quote.minimumSourceAmount,
            maximumSourceAmount: quote.maximumSourceAmount,
            estimatedMinutes: quote.estimatedMinutes,
            lateDepositPolicy: quote.lateDepositPolicy,
          },
        },
      };
    },
  };
}
