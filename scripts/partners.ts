/**
 * Partner provisioning CLI: `npm run partners -- <command> [options]`.
 *
 *   create --name NAME [--key-id ID] [--secret-stdin] [--reason TEXT] [--json]   new partner; prints keyId and secret (once)
 *   list [--json]                                                every partner, without secrets
 *   rotate-secret --key-id ID [--secret-stdin] [--reason TEXT] [--json]   new secret; the old one stops working at once
 *   disable --key-id ID --reason TEXT [--json]               refuse the key's requests (401 partner_disabled)
 *   enable --key-id ID --reason TEXT [--json]                accept them again
 *
 * Every command but list is recorded in the operator action trail (`npm run ops -- audit list`) with the
 * actor (--actor NAME, default: the OS user) and the reason, in the transaction of the change.
 * A chosen secret is read from standard input (--secret-stdin), where other users cannot see it; --secret S
 * still works but shows the secret in the process list. Uses the same configuration as the server
 * (DATABASE_URL, or the embedded database in DATA_DIR, shared with a running server) and the same SECRETS_KEY.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../server/config.js';
import { createPartnerAs, rotatePartnerSecretAs, setPartnerStatusAs } from '../server/partners.js';
import { listPartners } from '../server/store/partners.js';
import { actorOf, runCli, UsageError } from './cli.js';
import { openServiceStore } from './service-store.js';

const USAGE = `usage: npm run partners -- <command> [options]
  create --name NAME [--key-id ID] [--secret-stdin] [--reason TEXT] [--json]
  list [--json]
  rotate-secret --key-id ID [--secret-stdin] [--reason TEXT] [--json]
  disable --key-id ID --reason TEXT [--json]
  enable --key-id ID --reason TEXT [--json]
Every command but list is recorded in the operator action trail (npm run ops -- audit list) with the actor
(--actor NAME, default: the OS user running the command) and the reason.
Without --secret-stdin a secret is generated. --secret-stdin reads a chosen secret from standard input
(e.g. printf %s "$SECRET" | npm run partners -- create --name X --secret-stdin). --secret S also works, but
any user of the machine can read it in the process list.`;

async function run(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      'key-id': { type: 'string' },
      secret: { type: 'string' },
      'secret-stdin': { type: 'boolean', default: false },
      actor: { type: 'string' },
      reason: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const [command, ...extra] = positionals;
  if (!command || extra.length > 0) throw new UsageError(command ? `unexpected argument: ${extra[0]}` : 'no command given');
  const need = (name: 'name' | 'key-id'): string => {
    const value = values[name];
    if (!value) throw new UsageError(`${command} needs --${name}`);
    return value;
  };

  // Switching a key off or on is a judgement someone will ask about later: it needs a reason.
  if (command === 'disable' || command === 'enable') {
    need('key-id');
    if (!values.reason?.trim()) throw new UsageError(`${command} needs --reason TEXT (why; it is kept in the operator action trail)`);
  }
  const acting = { actor: actorOf(values.actor), reason: values.reason };
  const secret = await chosenSecret(values.secret, values['secret-stdin']);

  const config = loadConfig();
  const { db, secretBox: box } = await openServiceStore(config);
  const print = (json: unknown, text: string) => process.stdout.write(values.json ? `${JSON.stringify(json)}\n` : `${text}\n`);
  try {
    switch (command) {
      case 'create': {
        const issued = await createPartnerAs(db.knex, box, acting, {
          name: need('name'),
          keyId: values['key-id'],
          secret,
          mode: config.serviceMode,
        });
        print(
          issued,
          `partner ${issued.partnerId}\n  keyId:  ${issued.keyId}\n  secret: ${issued.secret}\nThe secret is shown once; store it in the partner's backend now.`,
        );
        return;
      }
      case 'list': {
        const partners = (await listPartners(db.knex)).map((p) => ({
          partnerId: p.id,
          keyId: p.keyId,
          name: p.name,
          status: p.status,
          createdAt: p.createdAt.toISOString(),
          secretRotatedAt: p.secretRotatedAt.toISOString(),
        }));
        print(partners, partners.length ? partners.map((p) => `${p.keyId}\t${p.status}\t${p.name}`).join('\n') : 'no partners');
        return;
      }
      case 'rotate-secret': {
        const issued = await rotatePartnerSecretAs(db.knex, box, acting, need('key-id'), secret);
        print(issued, `new secret for ${issued.keyId}: ${issued.secret}\nThe old secret no longer works. This one is shown once.`);
        return;
      }
      case 'disable':
      case 'enable': {
        const keyId = need('key-id');
        const partner = await setPartnerStatusAs(db.knex, acting, keyId, command === 'disable' ? 'disabled' : 'active');
        print({ partnerId: partner.id, keyId, status: partner.status }, `${keyId} is now ${partner.status}`);
        return;
      }
      default:
        throw new UsageError(`unknown command: ${command}`);
    }
  } finally {
    await db.close();
  }
}

// The secret the operator chose, if any: from standard input (one line, trailing newline dropped) or from
// --secret, which is visible to other users in the process list and so draws a warning.
async function chosenSecret(fromArgument: string | undefined, fromStdin: boolean): Promise<string | undefined> {
  if (fromArgument !== undefined && fromStdin) throw new UsageError('give --secret or --secret-stdin, not both');
  if (fromArgument !== undefined) {
    process.stderr.write('warning: --secret is visible to every user of this machine in the process list; prefer --secret-stdin\n');
    return fromArgument;
  }
  if (!fromStdin) return undefined;
  if (process.stdin.isTTY) process.stderr.write('secret (then Enter): ');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
  if (!text) throw new UsageError('--secret-stdin read an empty secret');
  return text;
}

runCli(run, USAGE);
