/**
 * Partner provisioning CLI: `npm run partners -- <command> [options]`.
 *
 *   create --name NAME [--key-id ID] [--secret S] [--json]   new partner; prints keyId and secret (once)
 *   list [--json]                                            every partner, without secrets
 *   rotate-secret --key-id ID [--secret S] [--json]          new secret; the old one stops working at once
 *   disable --key-id ID [--json]                             refuse the key's requests (401 partner_disabled)
 *   enable --key-id ID [--json]                              accept them again
 *
 * Uses the same configuration as the server (DATABASE_URL, or the embedded database in DATA_DIR, shared
 * with a running server) and the same SECRETS_KEY.
 */
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../server/config.js';
import { AppError } from '../server/domain/errors.js';
import { provisionPartner, rotatePartnerSecret } from '../server/partners.js';
import { resolveSecretsKey } from '../server/secrets-key.js';
import { migrate, openDatabase } from '../server/store/database.js';
import { listPartners, setPartnerStatus } from '../server/store/partners.js';
import { createSecretBox } from '../server/store/secret-box.js';

const USAGE = `usage: npm run partners -- <command> [options]
  create --name NAME [--key-id ID] [--secret S] [--json]
  list [--json]
  rotate-secret --key-id ID [--secret S] [--json]
  disable --key-id ID [--json]
  enable --key-id ID [--json]`;

class UsageError extends Error {}

async function run(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      'key-id': { type: 'string' },
      secret: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const [command, ...extra] = positionals;
  if (!command || extra.length > 0) throw new UsageError(command ? `unexpected argument: ${extra[0]}` : 'no command given');
  const need = (name: 'name' | 'key-id'): string => {
    const value = values[name];
    if (!value) throw new UsageError(`${command} needs --${name}`);
    return value;
  };

  const config = loadConfig();
  const box = createSecretBox(resolveSecretsKey(config));
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 2 });
  const print = (json: unknown, text: string) => process.stdout.write(values.json ? `${JSON.stringify(json)}\n` : `${text}\n`);
  try {
    await migrate(db.knex);
    switch (command) {
      case 'create': {
        const issued = await provisionPartner(db.knex, box, {
          name: need('name'),
          keyId: values['key-id'],
          secret: values.secret,
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
        const issued = await rotatePartnerSecret(db.knex, box, need('key-id'), values.secret);
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

run(process.argv.slice(2)).then(
  () => process.exit(0),
  (err: unknown) => {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
      process.exit(2);
    }
    if (err instanceof ConfigError || err instanceof AppError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
