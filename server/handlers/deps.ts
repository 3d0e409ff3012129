/** What handlers may use: the database, adapters, catalogue, configuration, the swap machinery and the clock. */
import type { Knex } from 'knex';
import type { Config } from '../config.js';
import type { CryptoThread } from '../crypto-thread.js';
import type { Catalog } from '../domain/catalog.js';
import type { SwapTokens } from '../domain/access-tokens.js';
import type { SigningKeySet } from '../domain/signed-instructions.js';
import type { RatesAdapter } from '../adapters/rates.js';
import type { JobEngine } from '../jobs/engine.js';
import type { SimulatedChain } from '../adapters/sandbox/chain.js';
import type { ChainWatching } from '../jobs/chain-watch.js';
import type { SwapService } from '../services/swaps.js';
import type { SecretBox } from '../store/secret-box.js';
import type { SwapHub } from '../store/swap-hub.js';

import type { Liquidity } from '../services/liquidity.js';
import type { NetworkStatus } from '../services/network-status.js';
import type { ScreeningGate } from '../services/screening.js';

/** Dependencies shared by every handler module. */
export interface HandlerDeps {
  config: Config;
  knex: Knex;
  catalog: Catalog;
  rates: RatesAdapter;
  /** Derives and checks swap access tokens. */
  swapTokens: SwapTokens;
  /** Moves swaps (sandbox operations run a step at once). */
  lifecycle: SwapService;
  /** The chain watchers (a sandbox payment wakes its network's). */
  watching: Pick<ChainWatching, 'wake' | 'scanNow'>;
  /**
   * The sandbox's simulated chain (main.ts gives it in sandbox mode only): payments and reorganisations. The
   * Sandbox operations are served only when it is given (http/app.ts).
   */
  sandbox?: Pick<SimulatedChain, 'pay' | 'reorganize'>;
  /** This instance's subscriptions to swap changes (the streams). */
  hub: SwapHub;
  /** Queues swap steps for the workers; sends test webhooks. */
  jobs: Pick<JobEngine, 'scheduleAdvance' | 'advance' | 'startSwaps' | 'startRoutes' | 'wakeRoutePolling' | 'webhooks'>;
  /** Checks wallet proofs off the main thread (crypto-thread.ts). */
  crypto: Pick<CryptoThread, 'verifyZanoProof'>;
  /** Seals webhook secrets at rest (the same box that holds partner secrets). */
  secretBox: SecretBox;
  /** The bundled OpenAPI document the server validates against and serves. */
  apiDocument: Record<string, unknown>;
  /** The API version label, read from the spec's info.version. */
  apiVersion: string;
  /** Current time; injectable so tests can move it. */
  now: () => Date;
  /** Production's board of network health and hot-wallet balances (none in the sandbox: always healthy). */
  networkStatus?: Pick<NetworkStatus, 'requireHealthy' | 'states'>;
  /** How much of an asset the service can still promise (none in the sandbox: no limit). */
  liquidity?: Liquidity;
  /** Screens destination and refund addresses at quote, swap and route creation (403 address_denied); none: off. */
  screening?: Pick<ScreeningGate, 'requireAllowed'>;
  /** Why permanent routes cannot be created (409 route_unavailable), or undefined when they can. */
  routesUnavailable?: string;
  /** The public keys whose signatures of deposit instructions verify (GET /signing-keys), the current one first. */
  signingKeySet: SigningKeySet;
}
