/**
 * The `sandbox` namespace: the simulation controls a sandbox deployment mounts (a production one answers 404),
 * so every swap status can be reached through the API alone.
 */
import type { Client } from 'openapi-fetch';
import type { paths } from './generated/api.js';
import { toResult, type ApiResult } from './result.js';
import type {
  SandboxDeadline,
  SandboxDeposit,
  SandboxDepositRequest,
  SandboxFailureStage,
  SandboxReorganization,
  SandboxReviewDecision,
  SwapOrder,
} from './schemas.js';

/** Simulation controls (sandbox deployments only). */
export interface SandboxApi {
  /** POST /sandbox/deposits: pays `amount` of `asset` on `network` to a deposit address; confirmations follow. */
  deposit(body: SandboxDepositRequest): Promise<ApiResult<SandboxDeposit>>;
  /** POST /sandbox/swaps/{id}/review-decision: plays the operator for a swap in `review`. */
  decideReview(id: string, decision: SandboxReviewDecision): Promise<ApiResult<SwapOrder>>;
  /** POST /sandbox/swaps/{id}/failures: arms a one-shot provider failure at `exchange` or `payout`. */
  injectFailure(id: string, stage: SandboxFailureStage): Promise<ApiResult<SwapOrder>>;
  /** POST /sandbox/swaps/{id}/clock: moves the swap's `deposit` or `expiry` deadline to now. */
  advanceClock(id: string, deadline: SandboxDeadline): Promise<ApiResult<SwapOrder>>;
  /** POST /sandbox/networks/{network}/reorganizations: removes the last `blocks` (1-100) blocks of `network`'s simulated chain. */
  reorganize(network: string, blocks: number): Promise<ApiResult<SandboxReorganization>>;
}

/** Builds the sandbox namespace over the signed client. */
export function createSandboxApi(raw: Client<paths>): SandboxApi {
  return {
    deposit: (body) => toResult(raw.POST('/sandbox/deposits', { body })),
    decideReview: (id, decision) =>
      toResult(raw.POST('/sandbox/swaps/{id}/review-decision', { params: { path: { id } }, body: { decision } })),
    injectFailure: (id, stage) => toResult(raw.POST('/sandbox/swaps/{id}/failures', { params: { path: { id } }, body: { stage } })),
    advanceClock: (id, deadline) => toResult(raw.POST('/sandbox/swaps/{id}/clock', { params: { path: { id } }, body: { deadline } })),
    reorganize: (network, blocks) =>
      toResult(raw.POST('/sandbox/networks/{network}/reorganizations', { params: { path: { network } }, body: { blocks } })),
  };
}
