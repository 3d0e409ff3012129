/**
 * Partner provisioning shared by the CLI (scripts/partners.ts) and the sandbox demo partner: generates
 * credentials, seals the secret and stores the partner. The plaintext secret is returned once, here.
 * What an operator does through the CLI goes through the `...As` functions, which record it in the operator
 * action trail (server/operator-actions.ts) in the same transaction.
 */
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { AppError } from './domain/errors.js';
import { formatKeyId, formatSecret, KEY_ID_RANDOM_BYTES, keyIdProblem, SECRET_RANDOM_BYTES, secretProblem } from './domain/credentials.js';
import { runOperatorAction, type Acting } from './operator-actions.js';
import { partnerSecretOwner, type SecretBox } from './store/secret-box.js';
import {
  findPartnerByKeyId,
  insertPartner,
  listPartners,
  lockPartnerByKeyId,
  replacePartnerSecret,
  setPartnerStatus,
  type PartnerRecord,
} from './store/partners.js';

/** Credentials as shown to the operator, once. */
export interface IssuedCredentials {
  partnerId: string;
  keyId: string;
  secret: string;
}

/** Creates a partner with the given or generated key id and secret. */
export async function provisionPartner(
  db: Knex,
  box: SecretBox,
  input: { name: string; keyId?: string; secret?: string; mode: 'sandbox' | 'production' },
): Promise<IssuedCredentials> {
  const name = input.name.trim();
  if (!name || name.length > 200) throw new AppError(400, 'invalid_request', 'a partner name is 1-200 characters');
  const keyId = input.keyId ?? formatKeyId(randomBytes(KEY_ID_RANDOM_BYTES), input.mode);
  const secret = input.secret ?? formatSecret(randomBytes(SECRET_RANDOM_BYTES));
  const problem = keyIdProblem(keyId) ?? secretProblem(secret);
  if (problem) throw new AppError(400, 'invalid_request', problem);
  const partner = await insertPartner(db, { keyId, name, secretSealed: box.seal(secret, partnerSecretOwner(keyId)) });
  return { partnerId: partner.id, keyId, secret };
}

/** Replaces a partner's secret; requests signed with the old one fail from now on. */
export async function rotatePartnerSecret(db: Knex, box: SecretBox, keyId: string, secret?: string): Promise<IssuedCredentials> {
  const next = secret ?? formatSecret(randomBytes(SECRET_RANDOM_BYTES));
  const problem = secretProblem(next);
  if (problem) throw new AppError(400, 'invalid_request', problem);
  const partner = await replacePartnerSecret(db, keyId, box.seal(next, partnerSecretOwner(keyId)));
  if (!partner) throw new AppError(404, 'not_found', `No partner with key id ${keyId}`);
  return { partnerId: partner.id, keyId, secret: next };
}

/** provisionPartner as an operator action: the partner and its `partner.create` record (target: the key id) commit together. */
export async function createPartnerAs(
  db: Knex,
  box: SecretBox,
  acting: Acting,
  input: { name: string; keyId?: string; secret?: string; mode: 'sandbox' | 'production' },
): Promise<IssuedCredentials> {
  // The key id is chosen before the transaction, so a refused create is recorded against the key id it tried.
  const keyId = input.keyId ?? formatKeyId(randomBytes(KEY_ID_RANDOM_BYTES), input.mode);
  const { value } = await runOperatorAction(db, acting, 'partner.create', keyId, async (trx) => {
    const issued = await provisionPartner(trx, box, { ...input, keyId });
    return { value: issued, details: { partnerId: issued.partnerId, name: input.name.trim() } };
  });
  return value;
}

/** rotatePartnerSecret as an operator action (`partner.rotate_secret`); the record keeps no secret. */
export async function rotatePartnerSecretAs(
  db: Knex,
  box: SecretBox,
  acting: Acting,
  keyId: string,
  secret?: string,
): Promise<IssuedCredentials> {
  const { value } = await runOperatorAction(db, acting, 'partner.rotate_secret', keyId, async (trx) => {
    const issued = await rotatePartnerSecret(trx, box, keyId, secret);
    return { value: issued, details: { partnerId: issued.partnerId } };
  });
  return value;
}

/** Disables or enables a partner's key as an operator action (`partner.disable` / `partner.enable`); 404 for an unknown key id. */
export async function setPartnerStatusAs(db: Knex, acting: Acting, keyId: string, status: PartnerRecord['status']): Promise<PartnerRecord> {
  const { value } = await runOperatorAction(
    db,
    acting,
    status === 'disabled' ? 'partner.disable' : 'partner.enable',
    keyId,
    async (trx) => {
      const before = await lockPartnerByKeyId(trx, keyId);
      const partner = before && (await setPartnerStatus(trx, keyId, status));
      if (!before || !partner) throw new AppError(404, 'not_found', `No partner with key id ${keyId}`);
      return { value: partner, details: { partnerId: partner.id, from: before.status, to: partner.status } };
    },
  );
  return value;
}

/**
 * The sandbox demo partner (key id `demo`), created on first start; its secret is readable in sandbox.
 * Safe when several instances start at once on one database: the loser of the insert race reads the winner's
 * row. Returns undefined (and the caller says why) when the stored secret was sealed under another key.
 */
export async function ensureDemoPartner(db: Knex, box: SecretBox): Promise<IssuedCredentials | undefined> {
  const read = async (): Promise<IssuedCredentials | undefined> => {
    const existing: PartnerRecord | undefined = await findPartnerByKeyId(db, DEMO_KEY_ID);
    if (!existing) return undefined;
    try {
      return { partnerId: existing.id, keyId: existing.keyId, secret: box.open(existing.secretSealed, partnerSecretOwner(existing.keyId)) };
    } catch {
      throw new DemoSecretUnreadableError();
    }
  };
  const existing = await read();
  if (existing) return existing;
  try {
    return await provisionPartner(db, box, { name: 'Sandbox demo partner', keyId: DEMO_KEY_ID, mode: 'sandbox' });
  } catch (err) {
    if (err instanceof AppError && err.status === 409) return read();
    throw err;
  }
}

/** The key ids of partners whose sealed secret does not open with `box` (another SECRETS_KEY, or a moved value). */
export async function findUnreadablePartnerSecrets(db: Knex, box: SecretBox): Promise<string[]> {
  const unreadable: string[] = [];
  for (const partner of await listPartners(db)) {
    try {
      box.open(partner.secretSealed, partnerSecretOwner(partner.keyId));
    } catch {
      unreadable.push(partner.keyId);
    }
  }
  return unreadable;
}

/** Key id of the sandbox demo partner. */
export const DEMO_KEY_ID = 'demo';

/** The demo partner exists but its secret was sealed under another SECRETS_KEY. */
export class DemoSecretUnreadableError extends Error {
  constructor() {
    super(
      `The demo partner's secret was sealed with another SECRETS_KEY; run: npm run partners -- rotate-secret --key-id ${DEMO_KEY_ID} --json`,
    );
    this.name = 'DemoSecretUnreadableError';
  }
}
