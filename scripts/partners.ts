/**
 * Partner provisioning CLI: `npm run partners -- <command> [options]`.
 *
 *   create --name NAME [--key-id ID] [--secret-stdin] [--json]   new partner; prints keyId and secret (once)
 *   list [--json]                                                every partner, without secrets
 *   rotate-secret --key-id ID [--secret-stdin] [--json]          new secret; the old one stops working at once
 *   disable --key-id ID [--json]                             refuse the key's requests (401 partner_disabled)
 *   enable --key-id ID [--json]                              accept them again
 *
 * A chosen secret is read from standard input (--secret-stdin), where other users cannot see it; --secret S
 * still works but shows the secret in the process list. Uses the same configuration as the server
 * (DATABASE_URL, or the embedded database in DATA_DIR, shared with a running server) and the same SECRETS_KEY.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../server/config.js';
import { AppError } from '../server/domain/errors.js';
import { provisionPartner, rotatePartnerSecret } from '../server/partners.js';
import { listPartners, setPartnerStatus } from '../server/store/partners.js';
import { runCli, UsageError } from './cli.js';
import { openServiceStore } from './service-store.js';

const USAGE = `usage: npm run partners -- <command> [options]
  create --name NAME [--key-id ID] [--secret-stdin] [--json]
  list [--json]
  rotate-secret --key-id ID [--secret-stdin] [--json]
  disable --key-id ID [--json]
  enable --key-id ID [--json]
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

  const secret = await chosenSecret(values.secret, values['secret-stdin']);

  const config = loadConfig();
  const { db, secretBox: box } = await openServiceStore(config);
  const print = (json: unknown, text: string) => process.stdout.write(values.json ? `${JSON.stringify(json)}\n` : `${text}\n`);
  try {
    switch (command) {
      case 'create': {
        const issued = await provisionPartner(db.knex, box, {
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
        const issued = await rotatePartnerSecret(db.knex, box, need('key-id'), secret);
        print(issued, `new secret for ${issued.keyId}: ${issued.secret}\nThe old secret no longer works. This one is shown once.`);
        return;
      }
      case 'disable':
      case 'enable': {
        const keyId = need('key-id');
        const partner = await setPartnerStatus(db.knex, keyId, command === 'disable' ? 'disabled' : 'active');
        if (!partner) throw new AppError(404, 'not_found', `No partner with key id ${keyId}`);
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
