/** Partners and their credentials. Secrets are sealed by the caller's SecretBox before they reach SQL. */
import type { Knex } from 'knex';
import { translateDbErrors } from './errors.js';

/** A partner row. */
export interface PartnerRecord {
  id: string;
  keyId: string;
  name: string;
  status: 'active' | 'disabled';
  secretSealed: string;
  secretRotatedAt: Date;
  createdAt: Date;
  /** Changes with every rotation and status change: the version authentication caches are checked against. */
  updatedAt: Date;
}

interface PartnerRow {
  id: string;
  key_id: string;
  name: string;
  status: 'active' | 'disabled';
  secret_sealed: string;
  secret_rotated_at: Date;
  created_at: Date;
  updated_at: Date;
}

const toRecord = (row: PartnerRow): PartnerRecord => ({
  id: row.id,
  keyId: row.key_id,
  name: row.name,
  status: row.status,
  secretSealed: row.secret_sealed,
  secretRotatedAt: row.secret_rotated_at,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** Inserts a partner; a taken key id is 409 `conflict`. */
export async function insertPartner(db: Knex, partner: { keyId: string; name: string; secretSealed: string }): Promise<PartnerRecord> {
  const [row] = await translateDbErrors(
    () =>
      db<PartnerRow>('partners').insert({ key_id: partner.keyId, name: partner.name, secret_sealed: partner.secretSealed }).returning('*'),
    `A partner with key id ${partner.keyId}`,
  );
  return toRecord(row);
}

/** The partner owning `keyId`, if any. */
export async function findPartnerByKeyId(db: Knex, keyId: string): Promise<PartnerRecord | undefined> {
  const row = await db<PartnerRow>('partners').where({ key_id: keyId }).first();
  return row ? toRecord(row) : undefined;
}

/** The partner owning `keyId`, locked until the caller's transaction ends (its status is about to change). */
export async function lockPartnerByKeyId(trx: Knex.Transaction, keyId: string): Promise<PartnerRecord | undefined> {
  const row = await trx<PartnerRow>('partners').where({ key_id: keyId }).forUpdate().first();
  return row ? toRecord(row) : undefined;
}

/** Every partner, oldest first. */
export async function listPartners(db: Knex): Promise<PartnerRecord[]> {
  return (await db<PartnerRow>('partners').orderBy('created_at').orderBy('key_id')).map(toRecord);
}

/** Replaces the sealed secret of `keyId`; undefined when there is no such partner. */
export async function replacePartnerSecret(db: Knex, keyId: string, secretSealed: string): Promise<PartnerRecord | undefined> {
  const [row] = await db<PartnerRow>('partners')
    .where({ key_id: keyId })
    .update({ secret_sealed: secretSealed, secret_rotated_at: db.fn.now(), updated_at: db.fn.now() } as never)
    .returning('*');
  return row ? toRecord(row) : undefined;
}

/** Sets the status of `keyId`; undefined when there is no such partner. */
export async function setPartnerStatus(db: Knex, keyId: string, status: PartnerRecord['status']): Promise<PartnerRecord | undefined> {
  const [row] = await db<PartnerRow>('partners')
    .where({ key_id: keyId })
    .update({ status, updated_at: db.fn.now() } as never)
    .returning('*');
  return row ? toRecord(row) : undefined;
}
