/**
 * The ordered list of migrations. Imported statically (not read from a directory) so the same list runs
 * under tsx, compiled output and tests alike. Forward only: never edit a migration that has shipped.
 */
import type { Knex } from 'knex';
import type { SecretBox } from '../secret-box.js';
import * as partners from './0001_partners.js';
import * as bindSealedSecrets from './0002_bind_sealed_secrets.js';
import * as quotesAndSwaps from './0003_quotes_and_swaps.js';
import * as webhooks from './0004_webhooks.js';
import * as permanentRoutes from './0005_permanent_routes.js';
import * as routeDeposits from './0006_route_deposits.js';
import * as operatorDecisions from './0007_operator_decisions.js';
import * as swapCreationGuard from './0008_swap_creation_guard.js';
import * as routeCreationGuard from './0009_route_creation_guard.js';
import * as routeAddressLookup from './0010_route_address_lookup.js';
import * as routeAssetKeys from './0011_route_asset_keys.js';
import * as routeAddressesPerNetwork from './0012_route_addresses_per_network.js';
import * as routeBucketsAndLimits from './0013_route_buckets_and_limits.js';
import * as operatorActions from './0014_operator_actions.js';
import * as chainLedger from './0015_chain_ledger.js';
import * as payoutAccepted from './0016_payout_accepted.js';
import * as sandboxArmedExchanges from './0017_sandbox_armed_exchanges.js';
import * as productionChains from './0018_production_chains.js';
import * as evmNonces from './0019_evm_nonces.js';
import * as evmSweeps from './0020_evm_sweeps.js';
import * as evmSweepBytes from './0021_evm_sweep_bytes.js';
import * as statementFunctions from './0022_statement_functions.js';
import * as sandboxArmedExchangeVersion from './0023_sandbox_armed_exchange_version.js';
import * as sandboxExchangeFiredVersion from './0024_sandbox_exchange_fired_version.js';
import * as webhookSetFunction from './0025_webhook_set_function.js';
import * as expectWindowFunction from './0026_expect_window_function.js';
import * as payoutVersions from './0027_payout_versions.js';
import * as treasury from './0028_treasury.js';
import * as payoutBatches from './0029_payout_batches.js';
import * as coldTransfers from './0030_cold_transfers.js';
import * as heldOutputs from './0031_held_outputs.js';
import * as webhookEventTypes from './0032_webhook_event_types.js';
import * as amountMismatchPolicy from './0033_amount_mismatch_policy.js';
import * as signedInstructions from './0034_signed_instructions.js';
import * as screeningVerdicts from './0035_screening_verdicts.js';
import * as routeDepositVerdicts from './0036_route_deposit_verdicts.js';

/** What a migration may need besides the database: data migrations that re-seal secrets need the key. */
export interface MigrationContext {
  secretBox?: SecretBox;
}

interface Migration {
  up(knex: Knex, context: MigrationContext): Promise<void>;
}

const migrations: Array<[name: string, migration: Migration]> = [
  ['0001_partners', partners],
  ['0002_bind_sealed_secrets', bindSealedSecrets],
  ['0003_quotes_and_swaps', quotesAndSwaps],
  ['0004_webhooks', webhooks],
  ['0005_permanent_routes', permanentRoutes],
  ['0006_route_deposits', routeDeposits],
  ['0007_operator_decisions', operatorDecisions],
  ['0008_swap_creation_guard', swapCreationGuard],
  ['0009_route_creation_guard', routeCreationGuard],
  ['0010_route_address_lookup', routeAddressLookup],
  ['0011_route_asset_keys', routeAssetKeys],
  ['0012_route_addresses_per_network', routeAddressesPerNetwork],
  ['0013_route_buckets_and_limits', routeBucketsAndLimits],
  ['0014_operator_actions', operatorActions],
  ['0015_chain_ledger', chainLedger],
  ['0016_payout_accepted', payoutAccepted],
  ['0017_sandbox_armed_exchanges', sandboxArmedExchanges],
  ['0018_production_chains', productionChains],
  ['0019_evm_nonces', evmNonces],
  ['0020_evm_sweeps', evmSweeps],
  ['0021_evm_sweep_bytes', evmSweepBytes],
  ['0022_statement_functions', statementFunctions],
  ['0023_sandbox_armed_exchange_version', sandboxArmedExchangeVersion],
  ['0024_sandbox_exchange_fired_version', sandboxExchangeFiredVersion],
  ['0025_webhook_set_function', webhookSetFunction],
  ['0026_expect_window_function', expectWindowFunction],
  ['0027_payout_versions', payoutVersions],
  ['0028_treasury', treasury],
  ['0029_payout_batches', payoutBatches],
  ['0030_cold_transfers', coldTransfers],
  ['0031_held_outputs', heldOutputs],
  ['0032_webhook_event_types', webhookEventTypes],
  ['0033_amount_mismatch_policy', amountMismatchPolicy],
  ['0034_signed_instructions', signedInstructions],
  ['0035_screening_verdicts', screeningVerdicts],
  ['0036_route_deposit_verdicts', routeDepositVerdicts],
];

/** A knex migration source over the static list above, handing each migration `context`. */
export function createMigrationSource(context: MigrationContext): Knex.MigrationSource<[string, Migration]> {
  return {
    getMigrations: async () => migrations,
    getMigrationName: ([name]) => name,
    getMigration: async ([, migration]) => ({
      up: (knex: Knex) => migration.up(knex, context),
      down: async () => {
        throw new Error('Migrations are forward only');
      },
    }),
  };
}
