/**
 * Operator CLI: `npm run ops -- <command> [options]`, on the same store as the server (see service-store.ts).
 *
 *   swaps list --action-required operator [--limit N] [--json]      swaps held for a person (review, failed)
 *   review decide ID --exchange|--pay-again|--refund [--to ADDRESS [--memo MEMO]]|--fail --reason TEXT [--actor NAME] [--json]
 *   payments return SWAP_ID TXHASH:INDEX --to ADDRESS [--memo MEMO] | --rebroadcast  --reason TEXT [--actor NAME] [--json]
 *   outputs held [--all] [--json]                                    outputs recorded but credited by nothing (held)
 *   outputs resolve NETWORK:TXHASH:INDEX --reason TEXT [--actor NAME] [--json]   mark a held output dealt with
 *   cold list [--limit N] [--json]                                   cold transfers (hot-wallet surplus), newest first
 *   cold release ID [--rebroadcast] --reason TEXT [--actor NAME] [--json]   release a held cold transfer
 *   webhooks redeliver EVENT_ID [--reason TEXT] [--actor NAME] [--json]   send an outbox message again
 *   audit list [--action X] [--target T] [--limit N] [--json]       the operator action trail, newest first
 *
 * Decisions follow docs/architecture.md#lifecycle through the swap lifecycle (server/operator.ts). This process runs no workers:
 * the job that carries a decided swap on, and a redelivery, are queued in pg-boss in the decision's own
 * transaction and run by whichever server instance takes them (or by the next one to start). Every action
 * is recorded in the operator action trail (server/operator-actions.ts) with its actor and reason.
 */
import { parseArgs } from 'node:util';
import { loadSandboxCatalog } from '../server/adapters/sandbox/catalog.js';
import { createMarketRates } from '../server/adapters/market/index.js';
import { createSandboxRates } from '../server/adapters/sandbox/rates.js';
import { loadConfig, type Config } from '../server/config.js';
import { AppError } from '../server/domain/errors.js';
import { openJobQueue, type JobQueue } from '../server/jobs/queue.js';
import {
  decideReview,
  listChainAlerts,
  listHeldPayoutsForOperator,
  listColdTransfersForOperator,
  listHeldOutputsForOperator,
  listOperatorQueue,
  redeliverWebhook,
  releaseCold,
  resolveOutput,
  resolveChainAlert,
  returnHeldPayment,
  type OperatorQueueItem,
} from '../server/operator.js';
import type { Database } from '../server/store/database.js';
import { listOperatorActions, type OperatorActionRecord } from '../server/store/operator-actions.js';
import type { OperatorDecision } from '../server/store/operator-decisions.js';
import { createSwapService } from '../server/services/swaps.js';
import { findSwap, type SwapRecord } from '../server/store/swaps.js';
import { createLogger } from '../server/logger.js';
import { servedCatalog } from '../server/production-config.js';
import { resolveSigningKeys } from '../server/signing-keys.js';
import { createProductionChainAdapters, createSandboxChainAdapters } from '../server/wiring.js';
import { actorOf, EXIT_USAGE, runCli, UsageError } from './cli.js';
import { openServiceStore } from './service-store.js';

// Exit codes: 0 done; 1 configuration or unexpected failure; these three say what the operator must change.
const EXIT_NOT_FOUND = 3;
const EXIT_INVALID_STATE = 4;

const USAGE = `usage: npm run ops -- <command> [options]
  swaps list --action-required operator [--limit N] [--json]
      swaps waiting for an operator (status review or failed), review first, longest waiting first (default limit 100)
  review decide ID --exchange|--pay-again|--refund [--to ADDRESS [--memo MEMO]]|--fail --reason TEXT [--actor NAME] [--json]
      decide a swap in review: --exchange (review -> exchanging, then on to finished; a payout held after an
      ambiguous broadcast goes out again, the same bytes), --pay-again (a new payout, once the held one is
      proven to have paid nothing: never taken, or reverted or cancelled at finality), --refund (-> refunded;
      with --to, to an address of the source network the customer gave instead of the swap's own refund
      destination, e.g. for a sender screening held), --fail (-> failed); recorded with the actor and the
      reason; the partner gets swap.updated
  payouts held [--json]
      payouts held for an operator (never built or refused for good, ambiguous, reverted, cancelled), oldest
      first, with the reason and the review decide options that fit
  outputs held [--all] [--json]
      outputs to watched addresses that are recorded and credited by nothing, oldest first: a Zano transfer of an
      unknown asset or with unlock_time, native value on an EVM deposit address no transaction explains (with
      --all, resolved ones too). The service never moves them on its own
  outputs resolve NETWORK:TXHASH:INDEX --reason TEXT [--actor NAME] [--json]
      mark a held output dealt with (returned by hand, or left where it is): it leaves the list and pss_outputs_held
  cold list [--limit N] [--json]
      cold transfers (a hot wallet's surplus above HOT_WALLET_MAX to <NET>_COLD_ADDRESS), newest first (default
      limit 100): amount, status, hash, confirmations, and why one is held
  cold release ID [--rebroadcast] --reason TEXT [--actor NAME] [--json]
      release a cold transfer held for an operator (it stops the next one of its asset until then): one that
      paid nothing (failed, reverted, cancelled) is released and the next surplus goes out anew; one held after
      an ambiguous broadcast needs --rebroadcast (the same bytes again, which cannot pay twice)
  alerts list [--json]
      what a reorganisation took back after its swap ended (a confirmed payout, a credited deposit), oldest first
  alerts resolve ID --reason TEXT [--actor NAME] [--json]
      mark a chain alert seen (it leaves the list and the pss_chain_alerts_open metric)
  payments return SWAP_ID TXHASH:INDEX --to ADDRESS [--memo MEMO] | --rebroadcast  --reason TEXT [--actor NAME] [--json]
      return a payment held for an operator (\`swaps list\` names them): --to ADDRESS on the swap's source
      network for an extra payment no safe destination could take back, or whose refund failed; --rebroadcast
      for one whose refund is held after an ambiguous broadcast (the same refund again, which cannot pay twice).
      A running server's payout sender broadcasts it, and the partner gets swap.updated
  webhooks redeliver EVENT_ID [--reason TEXT] [--actor NAME] [--json]
      queue a webhook message (its webhook-id) for delivery again, as its next attempt, to the partner's current URL
  audit list [--action ACTION] [--target TARGET] [--limit N] [--json]
      the operator action trail, newest first (default limit 100): actor, action, target, reason, time, outcome
--actor defaults to the OS user running the command (--operator is the older spelling). Every action is
recorded, refused ones too (outcome refused, with the reason the service gave).
exit codes: 0 done, 1 configuration or unexpected error, ${EXIT_USAGE} usage, ${EXIT_NOT_FOUND} not found, ${EXIT_INVALID_STATE} refused in the current state
(e.g. a decision on a swap that is not in review, a redelivery to a partner whose webhook is off)`;

/** Default number of rows `swaps list` and `audit list` show. */
const DEFAULT_LIST_LIMIT = 100;

async function run(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'action-required': { type: 'string' },
      limit: { type: 'string' },
      exchange: { type: 'boolean', default: false },
      'pay-again': { type: 'boolean', default: false },
      refund: { type: 'boolean', default: false },
      fail: { type: 'boolean', default: false },
      to: { type: 'string' },
      rebroadcast: { type: 'boolean', default: false },
      all: { type: 'boolean', default: false },
      memo: { type: 'string' },
      reason: { type: 'string' },
      actor: { type: 'string' },
      operator: { type: 'string' },
      action: { type: 'string' },
      target: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const [group, command, ...args] = positionals;
  if (!group) throw new UsageError('no command given');
  const print = (json: unknown, text: string) => process.stdout.write(values.json ? `${JSON.stringify(json, null, 2)}\n` : `${text}\n`);
  const expectArgs = (count: number, names: string) => {
    if (args.length < count) throw new UsageError(`${group} ${command} needs ${names}`);
    if (args.length > count) throw new UsageError(`unexpected argument: ${args[count]}`);
  };

  switch (`${group} ${command ?? ''}`.trim()) {
    case 'swaps list': {
      expectArgs(0, '');
      if (values['action-required'] !== 'operator') {
        throw new UsageError('swaps list needs --action-required operator (the only list this tool shows)');
      }
      const limit = listLimit();
      const swaps = await withStore(loadConfig(), (db) => listOperatorQueue(db.knex, limit));
      print(swaps, formatQueue(swaps, limit));
      return;
    }
    case 'review decide': {
      expectArgs(1, 'the swap id: review decide ID');
      const chosen = (['exchange', 'pay-again', 'refund', 'fail'] as const).filter((decision) => values[decision]);
      if (chosen.length !== 1) throw new UsageError('review decide needs exactly one of --exchange, --pay-again, --refund, --fail');
      if (!values.reason?.trim()) throw new UsageError('review decide needs --reason TEXT (why; it is kept with the decision)');
      if (values.to !== undefined && chosen[0] !== 'refund')
        throw new UsageError('--to goes with --refund (where the deposit goes back to)');
      if (values.memo !== undefined && !values.to?.trim()) throw new UsageError('--memo goes with --to ADDRESS');
      const refundTo = values.to?.trim() ? { address: values.to.trim(), memo: values.memo ?? null } : undefined;
      const actor = actingActor();
      const config = loadConfig();
      const { swap, decision } = await withJobQueue(config, async (db, jobs) => {
        const decided = await decideReview(
          { knex: db.knex, lifecycle: await createLifecycle(config, db, jobs), jobs, now: () => new Date() },
          { swapId: args[0], decision: chosen[0] as OperatorDecision, refundTo, reason: values.reason!, actor },
        );
        // A refund is committed to the payout outbox; a running server's sender broadcasts it, and the swap
        // is refunded then. The answer waits for that (a while at most).
        return { ...decided, swap: await awaitStatus(db, decided.swap, decided.decision.toStatus) };
      });
      print(
        { decision: { ...decision, createdAt: decision.createdAt.toISOString() }, swap: { id: swap.id, status: swap.status } },
        `swap ${swap.id}: ${decision.fromStatus} -> ${decision.toStatus} (${decision.decision} by ${decision.operator} at ${decision.createdAt.toISOString()})` +
          (decision.toStatus === 'exchanging' ? '\nThe running server carries it on to sending and finished.' : '') +
          (swap.status !== decision.toStatus && decision.toStatus !== 'exchanging'
            ? `\nThe swap is still ${swap.status}: a running server's payout sender broadcasts the refund, and the swap is ${decision.toStatus} then.`
            : ''),
      );
      return;
    }
    case 'payments return': {
      expectArgs(2, 'the swap id and the payment: payments return SWAP_ID TXHASH:INDEX');
      const payment = /^(.+):(\d+)$/.exec(args[1]);
      if (!payment) throw new UsageError(`the payment is TXHASH:INDEX (as swaps list shows it), not ${args[1]}`);
      if (!values.to?.trim() === !values.rebroadcast) {
        throw new UsageError('payments return needs exactly one of --to ADDRESS (where the payment goes back to) and --rebroadcast');
      }
      if (values.rebroadcast && values.memo !== undefined) throw new UsageError('--memo goes with --to, not --rebroadcast');
      if (!values.reason?.trim()) throw new UsageError('payments return needs --reason TEXT (why; it is kept with the action)');
      const actor = actingActor();
      const config = loadConfig();
      const { swap, payment: returned } = await withJobQueue(config, async (db, jobs) =>
        returnHeldPayment(
          { knex: db.knex, lifecycle: await createLifecycle(config, db, jobs), jobs, now: () => new Date() },
          {
            swapId: args[0],
            txHash: payment[1],
            outputIndex: Number(payment[2]),
            to: values.rebroadcast ? 'rebroadcast' : { address: values.to!.trim(), memo: values.memo ?? null },
            reason: values.reason!,
            actor,
          },
        ),
      );
      print(
        { swap: { id: swap.id, status: swap.status }, payment: returned },
        `swap ${swap.id}: payment ${returned.txHash}:${returned.outputIndex} (${returned.amount} ${swap.sourceAsset}) is ${returned.status}` +
          (values.rebroadcast ? ' (its held refund, broadcast again)' : ` to ${values.to!.trim()}`) +
          "\nA running server's payout sender broadcasts the refund; the payment shows refunded then.",
      );
      return;
    }
    case 'payouts held': {
      expectArgs(0, '');
      const config = loadConfig();
      const held = await withStore(config, async (db) => {
        const production = config.production;
        const catalog = production ? servedCatalog(loadSandboxCatalog(), production) : loadSandboxCatalog();
        return listHeldPayoutsForOperator(db.knex, (network) => catalog.networks[network]?.confirmations ?? 1);
      });
      print(
        held,
        held.length === 0
          ? 'no payout is held for an operator'
          : held
              .map(
                (p) =>
                  `${p.swapId ?? p.payoutId} ${p.purpose} ${p.amount} ${p.asset}/${p.network} to ${p.address}: ${p.status}${p.txHash ? ` ${p.txHash}` : ''}\n  why: ${p.reason}\n  remedies: ${p.remedies.join(', ')}`,
              )
              .join('\n'),
      );
      return;
    }
    case 'outputs held': {
      expectArgs(0, '');
      const outputs = await withStore(loadConfig(), (db) => listHeldOutputsForOperator(db.knex, { all: values.all === true }));
      print(
        outputs,
        outputs.length === 0
          ? 'no output is held for an operator'
          : outputs
              .map(
                (o) =>
                  `${o.key} ${o.amount} ${o.asset} to ${o.address}${o.fromAddress ? ` from ${o.fromAddress}` : ''}${o.removed ? ' (removed by a reorganisation)' : ''}\n  why: ${o.reason}` +
                  (o.resolvedAt ? `\n  resolved ${o.resolvedAt} by ${o.resolvedBy}: ${o.resolution}` : ''),
              )
              .join('\n'),
      );
      return;
    }
    case 'outputs resolve': {
      expectArgs(1, 'the output: outputs resolve NETWORK:TXHASH:INDEX');
      if (!values.reason?.trim()) throw new UsageError('outputs resolve needs --reason TEXT (what was done; it is kept with the action)');
      const resolved = await withStore(loadConfig(), (db) =>
        resolveOutput({ knex: db.knex, now: () => new Date() }, { key: args[0], actor: actingActor(), reason: values.reason! }),
      );
      print(resolved, `held output ${resolved.key} resolved at ${resolved.resolvedAt}`);
      return;
    }
    case 'cold list': {
      expectArgs(0, '');
      const limit = listLimit();
      const transfers = await withStore(loadConfig(), (db) => listColdTransfersForOperator(db.knex, limit));
      print(
        transfers,
        transfers.length === 0
          ? 'no cold transfer was made'
          : transfers
              .map(
                (t) =>
                  `${t.id} ${t.amount} ${t.asset}/${t.network} to ${t.address}: ${t.status}${t.txHash ? ` ${t.txHash}` : ''}` +
                  ` (${t.confirmations} confirmations) ${t.createdAt}` +
                  (t.heldReason && t.releasedAt === null ? `\n  held: ${t.heldReason}` : ''),
              )
              .join('\n'),
      );
      return;
    }
    case 'cold release': {
      expectArgs(1, 'the cold transfer id: cold release ID');
      if (!values.reason?.trim()) throw new UsageError('cold release needs --reason TEXT (what was done; it is kept with the action)');
      const actor = actingActor();
      const released = await withJobQueue(loadConfig(), (db, jobs) =>
        releaseCold(
          { knex: db.knex, jobs, now: () => new Date() },
          { id: args[0], rebroadcast: values.rebroadcast === true, actor, reason: values.reason! },
        ),
      );
      print(
        released,
        values.rebroadcast
          ? `cold transfer ${released.id} is ${released.status}: a running server's payout sender broadcasts the same bytes again`
          : `cold transfer ${released.id} released: the next surplus of ${released.asset}/${released.network} goes to cold storage anew`,
      );
      return;
    }
    case 'alerts list': {
      expectArgs(0, '');
      const alerts = await withStore(loadConfig(), (db) => listChainAlerts(db.knex));
      print(
        alerts,
        alerts.length === 0
          ? 'no open chain alert'
          : alerts.map((a) => `${a.id} ${a.network} ${a.kind} ${a.createdAt}\n  ${a.detail}`).join('\n'),
      );
      return;
    }
    case 'alerts resolve': {
      expectArgs(1, 'the alert id: alerts resolve ID');
      if (!values.reason?.trim()) throw new UsageError('alerts resolve needs --reason TEXT (what was done; it is kept with the action)');
      const resolved = await withStore(loadConfig(), (db) =>
        resolveChainAlert({ knex: db.knex, now: () => new Date() }, { id: args[0], actor: actingActor(), reason: values.reason! }),
      );
      print(resolved, `chain alert ${resolved.id} resolved at ${resolved.resolvedAt}`);
      return;
    }
    case 'webhooks redeliver': {
      expectArgs(1, 'the message id: webhooks redeliver EVENT_ID');
      const acting = { actor: actingActor(), reason: values.reason };
      const queued = await withJobQueue(loadConfig(), (db, jobs) => redeliverWebhook({ knex: db.knex, jobs }, acting, args[0]));
      print(queued, `queued ${queued.type} ${queued.messageId} as attempt ${queued.attempt} to ${queued.url}`);
      return;
    }
    case 'audit list': {
      expectArgs(0, '');
      const limit = listLimit();
      const entries = await withStore(loadConfig(), (db) =>
        listOperatorActions(db.knex, { limit, action: values.action, target: values.target }),
      );
      print(
        entries.map((entry) => ({ ...entry, actedAt: entry.actedAt.toISOString() })),
        formatTrail(entries, limit),
      );
      return;
    }
    default:
      throw new UsageError(`unknown command: ${positionals.join(' ')}`);
  }

  function listLimit(): number {
    const limit = values.limit === undefined ? DEFAULT_LIST_LIMIT : Number(values.limit);
    if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit must be a positive integer, not ${values.limit}`);
    return limit;
  }

  function actingActor(): string {
    if (values.actor !== undefined && values.operator !== undefined) throw new UsageError('give --actor or --operator, not both');
    return actorOf(values.actor ?? values.operator);
  }
}

// How long `review decide` waits for a running server to carry a decision out (a refund's broadcast).
const DECISION_WAIT_MS = 30_000;

// The swap once it is in `status`, or as it is after DECISION_WAIT_MS.
async function awaitStatus(db: Database, swap: SwapRecord, status: string): Promise<SwapRecord> {
  const deadline = Date.now() + DECISION_WAIT_MS;
  let current = swap;
  while (current.status !== status && current.status === 'review' && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    current = (await findSwap(db.knex, swap.id)) ?? current;
  }
  return current;
}

// Opens the store for `action` and closes it afterwards, whatever happens.
async function withStore<T>(config: Config, action: (db: Database) => Promise<T>): Promise<T> {
  const { db } = await openServiceStore(config);
  try {
    return await action(db);
  } finally {
    await db.close();
  }
}

// The store and the servers' job queue (pg-boss), for an action that queues work for their workers.
async function withJobQueue<T>(config: Config, action: (db: Database, jobs: JobQueue) => Promise<T>): Promise<T> {
  return withStore(config, async (db) => {
    const jobs = await openJobQueue(db.knex, { webhookTimeoutSeconds: config.webhookTimeoutSeconds });
    try {
      return await action(db, jobs);
    } finally {
      await jobs.close();
    }
  });
}

// The swap service a server of this configuration runs, on the adapters server/main.ts would choose for its
// mode; a refund decision commits the refund to the payout outbox, and a running server's sender sends it.
async function createLifecycle(config: Config, db: Database, jobs: JobQueue) {
  const now = () => new Date();
  const production = config.production;
  const catalog = production ? servedCatalog(loadSandboxCatalog(), production) : loadSandboxCatalog();
  const chains = production
    ? await createProductionChainAdapters({ production, knex: db.knex, catalog, logger: createLogger('warn') })
    : createSandboxChainAdapters({ config, knex: db.knex, catalog, now });
  return createSwapService({
    knex: db.knex,
    catalog,
    // A refund decision prices its network fee at the market, as the server does (an approval's exchange is
    // priced by the server's own step).
    rates: production ? createMarketRates({ ...production.rates, now }) : createSandboxRates(catalog),
    adapters: chains.registry,
    // An operator's decisions allocate no address; the signer is the server's all the same (SIGNING_KEY_FILE).
    signer: resolveSigningKeys(config).signer,
    exchange: chains.exchange,
    jobs,
    now,
  });
}

function formatTrail(entries: OperatorActionRecord[], limit: number): string {
  if (entries.length === 0) return 'no operator actions recorded';
  const rows = entries.map((e) => [
    e.actedAt.toISOString(),
    e.actor,
    e.action,
    e.target,
    e.outcome,
    // One line per entry: a reason typed over several lines is shown on one.
    (e.reason ?? '-').replace(/\s+/g, ' '),
  ]);
  return formatTable(['TIME', 'ACTOR', 'ACTION', 'TARGET', 'OUTCOME', 'REASON'], rows, entries.length === limit ? limit : undefined);
}

function formatQueue(swaps: OperatorQueueItem[], limit: number): string {
  if (swaps.length === 0) return 'no swaps wait for an operator';
  const rows = swaps.map((s) => [
    s.id,
    s.partnerKeyId ?? s.partnerId,
    s.mode,
    s.heldPayments > 0 ? `${s.status} (${s.heldPayments} payment${s.heldPayments === 1 ? '' : 's'} held)` : s.status,
    s.reasonCode,
    s.failureCode ?? '-',
    `${s.receivedAmount ?? '-'} of ${s.depositAmount} ${s.sourceAsset}/${s.sourceNetwork}`,
    `${s.expectedOutputAmount ?? '-'} ${s.destinationAsset}/${s.destinationNetwork}`,
    s.updatedAt,
  ]);
  const header = ['ID', 'PARTNER', 'MODE', 'STATUS', 'REASON', 'FAILURE', 'RECEIVED', 'EXPECTED OUT', 'UPDATED'];
  const held = swaps.flatMap((s) =>
    s.heldPaymentList.map(
      (p) =>
        `  payments return ${s.id} ${p.payment} ${p.returnBy === 'to' ? '--to ADDRESS' : '--rebroadcast'} --reason TEXT   # ${p.amount} ${s.sourceAsset}/${s.sourceNetwork}` +
        (p.returnBy === 'rebroadcast' ? ', its refund held after an ambiguous broadcast' : ''),
    ),
  );
  const screened = swaps.flatMap((s) =>
    s.screening.map(
      (v) =>
        `  ${s.id} sender ${v.address}: ${v.decision === 'deny' ? 'denied' : 'held for review'} by ${v.provider === 'denylist' ? 'the denylist' : 'the screening provider'}: ${(v.reason ?? 'no reason given').replace(/\s+/g, ' ')}`,
    ),
  );
  const table = formatTable(header, rows, swaps.length === limit ? limit : undefined);
  const sections = [table];
  if (held.length > 0) sections.push(`Payments held for an operator (return each with):\n${held.join('\n')}`);
  if (screened.length > 0) {
    sections.push(
      `Address screening (decide with review decide ID --exchange | --refund --to ADDRESS | --fail; --refund to a sender screening did not allow is refused):\n${screened.join('\n')}`,
    );
  }
  return sections.join('\n\n');
}

// Columns padded to their widest cell; `more` notes that the list stopped at that limit.
function formatTable(header: string[], rows: string[][], more: number | undefined): string {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  const note = more === undefined ? '' : `\n(the first ${more}; --limit N shows more)`;
  return [line(header), ...rows.map(line)].join('\n') + note;
}

function exitCodeOf(err: AppError): number {
  if (err.status === 404) return EXIT_NOT_FOUND;
  if (err.status === 409) return EXIT_INVALID_STATE;
  if (err.status === 400) return EXIT_USAGE;
  return 1;
}

runCli(run, USAGE, exitCodeOf);
