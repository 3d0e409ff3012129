/** Short names for the generated schemas the typed methods take and return (aliases of generated/api.ts). */
import type { components } from './generated/api.js';

type Schemas = components['schemas'];

/** Body of POST /quotes. */
export type QuoteRequest = Schemas['QuoteRequest'];
/** Answer of POST /quotes: `{ quote }`. */
export type QuoteResponse = Schemas['QuoteResponse'];
/** An executable quote. */
export type Quote = Schemas['Quote'];
/** Body of POST /swaps: the quote's fields, `quoteId`, the applied `rateType` and the destination. */
export type SwapRequest = Schemas['SwapRequest'];
/** A swap's order record with its public status. */
export type Swap = Schemas['Swap'];
/** One payment to a swap's deposit address (`Swap.deposits`): its role, confirmations and what became of it. */
export type SwapDeposit = Schemas['SwapDeposit'];
/** A swap's public status, e.g. `waiting`, `finished`. */
export type SwapStatus = Schemas['SwapStatus'];
/** One entry of a swap's timeline. */
export type SwapEvent = Schemas['SwapEvent'];
/** Answer of POST /swaps: `{ order, accessToken }`. */
export type SwapCreated = Schemas['SwapCreated'];
/** Answer of GET /swaps/{id}: `{ order, events }`. */
export type SwapDetail = Schemas['SwapDetail'];
/** One page of GET /swaps: `{ orders, nextCursor }`. */
export type SwapList = Schemas['SwapList'];
/** Answer of the sandbox swap operations: `{ order }`. */
export type SwapOrder = Schemas['SwapOrder'];
/** Body of POST /sandbox/deposits. */
export type SandboxDepositRequest = Schemas['SandboxDepositRequest'];
/** A simulated deposit transaction. */
export type SandboxDeposit = Schemas['SandboxDeposit'];
/** An operator's decision on a swap in review: `approve`, `refund` or `fail`. */
export type SandboxReviewDecision = Schemas['SandboxReviewDecision']['decision'];
/** Where an injected provider failure fires: `exchange` or `payout`. */
export type SandboxFailureStage = Schemas['SandboxFailureInjection']['stage'];
/** Which deadline the sandbox clock moves to now: `deposit` or `expiry`. */
export type SandboxDeadline = Schemas['SandboxClockAdvance']['deadline'];
/** What a simulated chain reorganisation removed, and the chain's new tip. */
export type SandboxReorganization = Schemas['SandboxReorganization'];
