/**
 * One-time swaps: idempotent creation from a quote (docs/architecture.md#idempotency), reads by access token or signed request,
 * and the partner's list with cursor pagination.
 */
import { randomUUID } from 'node:crypto';
import { AppError } from '../domain/errors.js';
import { IDEMPOTENCY_RETRY_AFTER_SECONDS, IDEMPOTENCY_WAIT_SECONDS, requestHash } from '../domain/idempotency.js';
import { Money } from '../domain/money.js';
import { toSwapBody, toSwapEventBody, TERMS_VERSION, type SwapBody, type SwapRecord } from '../domain/swap-view.js';
import { unauthorized } from '../domain/signing.js';
import type { Handlers, HandlerContext } from '../http/handler-types.js';
import { LOCK_NOT_AVAILABLE, type IdempotencyRecord } from '../store/idempotency.js';
import type { IssuedQuotes, QuoteRecord } from '../store/quotes.js';
import { createCreationStateReader, createSwapWriter, type CreationOutcome } from '../store/swap-creation.js';
import { createSwapPageReader, createSwapViewReader, listPartnerSwapsByIds } from '../store/swaps.js';
import type { HandlerDeps } from './deps.js';
import { requirePartner } from './partner.js';
import { blankToNull, checkDestination, checkRefund, resolvePair } from './request-rules.js';
import { decodeCursor, encodeCursor, PAGE_POSITION, positionOf } from './cursors.js';

type CreateSwapBody = HandlerContext<'createSwap'>['body'];

const quoteExpired = () => new AppError(409, 'quote_expired', 'The quote has expired or was already used; request a new quote.');

/** Handlers for createSwap, getSwap and listSwaps; `issued` holds the quotes this instance stored. */
export function createSwapHandlers(deps: HandlerDeps, issued: IssuedQuotes): Pick<Handlers, 'createSwap' | 'getSwap' | 'listSwaps'> {
  const readCreationState = createCreationStateReader(deps.knex);
  const createSwap = createSwapWriter(deps.knex);
  const readSwapPage = createSwapPageReader(deps.knex);
  const readSwapView = createSwapViewReader(deps.knex);
  return {
    async createSwap({ partner, headers, body }) {
      const { partnerId, user } = requirePartner(partner);
      const key = headers['Idempotency-Key'] ?? (headers as Record<string, string>)['idempotency-key'];
      // Everything that needs no database is checked first; none of it binds the key.
      const { source, destination } = resolvePair(deps.catalog, body);
      const payout = checkDestination(destination, body);
      const refund = checkRefund(source, body);
      const hash = requestHash(body);
      const at = deps.now();

      const lookup = { partnerId, key, quoteId: body.quoteId, now: at };
      // A quote this instance issued that the request may use is not read again: the statement that creates
      // the swap checks that it is still unused and that the key is not bound, and a create it refuses reads
      // both (below). Otherwise the key and the quote are read first, so a replay is answered before any
      // objection to the quote (it may have expired since the first request), as always.
      const kept = issued.find(body.quoteId, partnerId, at);
      let quote: QuoteRecord;
      if (kept && quoteProblem(kept, body, at) === undefined) {
        quote = kept;
      } else {
        const state = await readCreationState(lookup);
        if (state.bound) return replay(state.bound, hash);
        quote = usableQuote(state.quote, body, at);
      }
      // Screening asks its provider here, outside the statement that creates the swap (a replay answered above
      // was screened when it was created).
      await deps.screening?.requireAllowed(
        [
          { field: 'destinationAddress', network: destination.network, address: payout.destination, role: 'destination' },
          ...(refund.refundAddress !== null
            ? [{ field: 'refundAddress', network: source.network, address: refund.refundAddress, role: 'refund' as const }]
            : []),
        ],
        { operation: 'createSwap', partnerId },
      );
      // Every field is set here, none left to a column default: the response is built from this record and
      // stored with it in one statement (store/swap-creation.ts).
      const created: SwapRecord = {
        id: randomUUID(),
        partnerId,
        quoteId: quote.id,
        mode: 'standard',
        externalUser: user,
        sourceAsset: source.symbol,
        sourceNetwork: source.network,
        destinationAsset: destination.symbol,
        destinationNetwork: destination.network,
        ...payout,
        refundMode: body.refundMode,
        ...refund,
        rateType: quote.rateType,
        sourceAmount: quote.sourceAmount,
        depositAmount: quote.depositAmount,
        expectedOutputAmount: quote.receiveAmount,
        minimumOutputAmount: quote.minimumReceiveAmount,
        actualOutputAmount: null,
        quotedRate: quote.rate,
        feeUsd: quote.feeUsd,
        depositAddress: null,
        depositMemo: null,
        depositInstructionsJws: null,
        sourceTxHash: null,
        receivedAmount: null,
        receivedFrom: null,
        lateDeposit: false,
        confirmationCount: null,
        requiredConfirmations: deps.catalog.networks[source.network].confirmations,
        settlementTxHash: null,
        refundTxHash: null,
        refundAmount: null,
        quoteExpiresAt: new Date(at.getTime() + deps.config.depositWindowSeconds * 1000),
        confirmationDeadline: new Date(
          at.getTime() + (deps.config.depositWindowSeconds + deps.config.fixedRateConfirmationGraceSeconds) * 1000,
        ),
        expiresAt: new Date(at.getTime() + (deps.config.depositWindowSeconds + deps.config.overdueGraceSeconds) * 1000),
        lateDepositPolicy: quote.lateDepositPolicy,
        amountMismatchPolicy: body.amountMismatchPolicy ?? 'refund',
        excessRefundAmount: null,
        excessRefundTxHash: null,
        status: 'waiting',
        failureCode: null,
        armedFailure: null,
        termsVersion: TERMS_VERSION,
        routeId: null,
        feePercent: null,
        feeFloorUsd: null,
        markupPercent: null,
        markupAmount: null,
        markupUsd: null,
        deposits: [],
        createdAt: at,
        updatedAt: at,
      };
      const response = { order: toSwapBody(created) };

      // A quote makes one swap: requests after this one read it (and find it used, or replay this one).
      issued.forget(quote.id);
      // The swap commits in the store's statement; its first step (deposit-address allocation) is queued once it
      // has (a swap left without one is started by the engine's sweep of unstarted work).
      let outcome: CreationOutcome;
      try {
        outcome = await createSwap({
          partnerId,
          key,
          requestHash: hash,
          swap: created,
          response: { status: 202, body: response },
          now: at,
          keyExpiresAt: new Date(at.getTime() + deps.config.idempotencyTtlSeconds * 1000),
          waitSeconds: IDEMPOTENCY_WAIT_SECONDS,
        });
      } catch (err) {
        if ((err as { code?: string }).code === LOCK_NOT_AVAILABLE) {
          throw new AppError(
            503,
            'service_unavailable',
            `An identical request with this Idempotency-Key, or another swap from the same quote, is still in progress; retry after ${IDEMPOTENCY_RETRY_AFTER_SECONDS} s with the same key and body.`,
            undefined,
            { cause: err, headers: { 'Retry-After': String(IDEMPOTENCY_RETRY_AFTER_SECONDS) } },
          );
        }
        throw err;
      }
      if (outcome === 'created') {
        await deps.jobs.startSwaps([created.id]);
        return { status: 202, body: { ...response, accessToken: deps.swapTokens.tokenFor(created.id) } };
      }
      // Another request used the quote or bound the key meanwhile, and committed, and this one wrote nothing:
      // when that was an identical request, this one replays it.
      const now = await readCreationState(lookup);
      if (now.bound) return replay(now.bound, hash);
      throw quoteExpired();
    },

    async getSwap({ path, partner, req }) {
      // A token names its swap: one for another id is refused before the swap is looked up.
      if (!partner && (!req.bearerToken || !deps.swapTokens.matches(path.id, req.bearerToken))) {
        throw unauthorized('invalid_token', 'This access token does not grant access to this swap.');
      }
      const found = await readSwapView(path.id, partner?.partnerId);
      if (!found) throw new AppError(404, 'not_found', 'No such swap.');
      return { status: 200, body: { order: toSwapBody(found.swap), events: found.events.map(toSwapEventBody) } };
    },

    async listSwaps({ partner, query }) {
      const { partnerId } = requirePartner(partner);
      if (query.ids !== undefined) {
        // Bulk status: one read of the ids asked, never a page; another partner's swap is as absent as none.
        if (query.cursor !== undefined) {
          throw new AppError(400, 'invalid_request', 'cursor cannot be combined with ids: an answer with ids is never paged.', {
            field: 'cursor',
          });
        }
        const swaps = await listPartnerSwapsByIds(deps.knex, partnerId, query.ids, query.status);
        return { status: 200, body: { orders: swaps.map((swap) => toSwapBody(swap)), nextCursor: null } };
      }
      // 100 without limit, as every list the requirement shows unpaged (spec: "Lists and paging").
      const limit = query.limit ?? 100;
      const after = query.cursor === undefined ? undefined : positionOf(decodeCursor(query.cursor, query.status, PAGE_POSITION));
      const rows = await readSwapPage(partnerId, { limit: limit + 1, status: query.status, after });
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      return {
        status: 200,
        body: {
          orders: page.map((swap) => toSwapBody(swap)),
          nextCursor: rows.length > limit && last ? encodeCursor({ c: last.createdAt.toISOString(), i: last.id }, query.status) : null,
        },
      };
    },
  };

  // The answer to a request whose key is bound: the stored response, if the request is the same.
  function replay(bound: IdempotencyRecord, hash: string) {
    if (bound.requestHash !== hash) {
      throw new AppError(
        409,
        'idempotency_key_reused',
        'This Idempotency-Key was already used with a different request body; use a new key for a new swap.',
      );
    }
    const replayed = bound.responseBody as { order: SwapBody };
    return {
      status: 202 as const,
      body: { ...replayed, accessToken: deps.swapTokens.tokenFor(bound.swapId!) },
      headers: { 'Idempotent-Replayed': 'true' },
    };
  }

  // The partner's quote (undefined: not the partner's), if it is unused and unexpired at `at`; every field
  // the swap repeats must equal the quote's. Nothing is written before this passes.
  function usableQuote(quote: QuoteRecord | undefined, body: CreateSwapBody, at: Date): QuoteRecord {
    const problem = quoteProblem(quote, body, at);
    if (problem) throw problem;
    return quote!;
  }

  // Why the swap cannot be created from `quote` (see usableQuote), or undefined when it can.
  function quoteProblem(quote: QuoteRecord | undefined, body: CreateSwapBody, at: Date): AppError | undefined {
    if (!quote || quote.usedAt !== null || quote.expiresAt.getTime() <= at.getTime()) return quoteExpired();
    const differs: Array<[field: string, quoted: string | null, requested: string | null]> = [
      ['sourceAsset', quote.sourceAsset, body.sourceAsset],
      ['sourceNetwork', quote.sourceNetwork, body.sourceNetwork],
      ['destinationAsset', quote.destinationAsset, body.destinationAsset],
      ['destinationNetwork', quote.destinationNetwork, body.destinationNetwork],
      ['rateType', quote.rateType, body.rateType],
      ['refundMode', quote.refundMode, body.refundMode],
      ['refundAddress', quote.refundAddress, blankToNull(body.refundAddress)],
      ['refundMemo', quote.refundMemo, blankToNull(body.refundMemo)],
    ];
    const mismatch =
      (new Money(quote.sourceAmount).equals(body.sourceAmount)
        ? undefined
        : (['sourceAmount', quote.sourceAmount, body.sourceAmount] as const)) ??
      differs.find(([, quoted, requested]) => quoted !== requested);
    if (mismatch) {
      const [field, quoted, requested] = mismatch;
      return new AppError(400, 'quote_mismatch', `${field} does not match the quote.`, { field, quote: quoted, request: requested });
    }
    return undefined;
  }
}
