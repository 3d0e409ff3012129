/** Scratch databases on a real PostgreSQL, for tests and benches that need a database of their own. */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** A database made for one suite or run. */
export interface ScratchDatabase {
  name: string;
  /** Its connection URL (the admin URL with this database's name). */
  url: string;
  /** Drops it, closing any connection still open to it. */
  drop(): Promise<void>;
}

async function asAdmin(adminUrl: string, sql: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}

/** Creates `<prefix>_<random hex>` on the server of `adminUrl`. */
export async function createScratchDatabase(adminUrl: string, prefix: string): Promise<ScratchDatabase> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await asAdmin(adminUrl, `create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { name, url: url.toString(), drop: () => asAdmin(adminUrl, `drop database if exists ${name} with (force)`) };
}

/** Why no PostgreSQL answers at `adminUrl` (production mode needs one), or null when one does. */
export async function postgresMissing(adminUrl: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return null;
  } catch (err) {
    return `no PostgreSQL at ${new URL(adminUrl).host} (${(err as Error).message}); production mode needs one`;
  } finally {
    await client.end().catch(() => undefined);
  }
}
