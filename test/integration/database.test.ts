import { execFile } from 'node:child_process';
import { createCipheriv, randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { migrate, openDatabase } from '../../server/store/database.js';
import { createMigrationSource } from '../../server/store/migrations/index.js';
import { createSecretBox, partnerSecretOwner } from '../../server/store/secret-box.js';
import { copyStartedDataDir } from '../support/process.js';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');

/** Every file and folder below `dir` whose mode grants group or world any access. */
async function openToOthers(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await fs.readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isSocket()) continue;
    const file = path.join(entry.parentPath, entry.name);
    if ((await fs.stat(file)).mode & 0o077) found.push(file);
  }
  return found;
}

describe('embedded database', () => {
  let dataDir: string;
  before(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'pss-data-'));
  });
  after(() => fs.rm(dataDir, { recursive: true, force: true }));

  it('keeps data in DATA_DIR across restarts', async () => {
    const first = await openDatabase({ dataDir });
    await migrate(first.knex);
    await first.knex.raw('create table restart_probe (value text)');
    await first.knex('restart_probe').insert({ value: 'kept' });
    await first.close();

    const second = await openDatabase({ dataDir });
    try {
      expect(await second.knex('restart_probe').pluck('value')).to.deep.equal(['kept']);
      expect(await migrate(second.knex)).to.deep.equal([]); // nothing left to apply
    } finally {
      await second.close();
    }
  });

  it('keeps DATA_DIR private to its owner: the folder is 0700 and no file grants group or world access', async () => {
    const dir = path.join(dataDir, 'private');
    const db = await openDatabase({ dataDir: dir });
    try {
      await migrate(db.knex);
      expect((await fs.stat(dir)).mode & 0o777).to.equal(0o700);
      expect(await openToOthers(dir)).to.deep.equal([]);
    } finally {
      await db.close();
    }
    expect(await openToOthers(dir)).to.deep.equal([]);
  });

  it('makes an existing DATA_DIR with open modes private when it opens it', async () => {
    const dir = path.join(dataDir, 'was-open');
    await fs.mkdir(dir, { mode: 0o777 });
    await fs.chmod(dir, 0o777);
    const db = await openDatabase({ dataDir: dir });
    await db.close();
    expect((await fs.stat(dir)).mode & 0o777).to.equal(0o700);
  });

  it('listens on a Unix socket inside DATA_DIR, not on a TCP port', async function () {
    this.timeout(120_000); // the first copy in a test process starts the template's server (about 15 s)
    // A DATA_DIR a server started on before (copied): creating one is the subject of the tests above.
    const dir = path.join(dataDir, 'socket');
    await copyStartedDataDir(root, dir);
    const db = await openDatabase({ dataDir: dir });
    try {
      const holder = JSON.parse(await fs.readFile(path.join(dir, 'pglite.json'), 'utf8'));
      expect(holder).to.deep.equal({ pid: process.pid, socketDir: dir });
      expect((await fs.stat(path.join(dir, '.s.PGSQL.5432'))).isSocket()).to.equal(true);
      const connection = db.knex.client.config.connection as { host: string };
      expect(connection.host).to.equal(dir);
      expect((await db.knex.raw('select 1 as one')).rows).to.deep.equal([{ one: 1 }]);
    } finally {
      await db.close();
    }
  });

  it('starts again after a crash left its socket file behind', async function () {
    this.timeout(120_000); // the first copy in a test process starts the template's server (about 15 s)
    const dir = path.join(dataDir, 'crashed');
    await fs.mkdir(dir, { mode: 0o700 });
    await copyStartedDataDir(root, dir);
    // What a SIGKILLed server leaves: a socket file nobody listens on, and a lock naming a dead process.
    const stale = net.createServer().listen(path.join(dir, '.s.PGSQL.5432'));
    await new Promise((resolve) => stale.once('listening', resolve));
    (stale as unknown as { _handle: { close(): void } | null })._handle?.close(); // closes without unlinking
    await fs.writeFile(path.join(dir, 'pglite.json'), JSON.stringify({ pid: 2 ** 22 + 1, socketDir: dir }));
    const db = await openDatabase({ dataDir: dir });
    try {
      expect((await db.knex.raw('select 1 as one')).rows).to.deep.equal([{ one: 1 }]);
    } finally {
      await db.close();
    }
  });

  it('cannot be reached by another local user', async function () {
    if (process.getuid?.() !== 0) return this.skip(); // needs root to act as another user
    this.timeout(120_000); // the first copy in a test process starts the template's server (about 15 s)
    // The parent folder lets everyone through, so only DATA_DIR's own protection can stop the other user.
    const parent = path.join(dataDir, 'open-parent');
    await fs.mkdir(parent, { mode: 0o755 });
    await fs.chmod(dataDir, 0o755);
    await fs.chmod(parent, 0o755);
    const dir = path.join(parent, 'other-user');
    await copyStartedDataDir(root, dir);
    const db = await openDatabase({ dataDir: dir });
    try {
      const probe = `require('net').connect(${JSON.stringify(path.join(dir, '.s.PGSQL.5432'))})
        .on('connect', () => { console.log('connected'); process.exit(0) })
        .on('error', (e) => { console.log(e.code); process.exit(0) })`;
      const { stdout } = await run('runuser', ['-u', 'nobody', '--', process.execPath, '-e', probe], { cwd: '/' });
      expect(stdout.trim()).to.equal('EACCES');
    } finally {
      await db.close();
    }
  });

  it('binds partner secrets sealed before owners existed to their key id (migration 0002)', async () => {
    const key = randomBytes(32);
    const box = createSecretBox(key);
    const db = await openDatabase({});
    try {
      await migrate(db.knex, { secretBox: box });
      // A row as the first release sealed it: AES-256-GCM with no associated data, format v1.
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const ciphertext = Buffer.concat([cipher.update('pss_sk_legacy-secret-0123456789', 'utf8'), cipher.final()]);
      const v1 = ['v1', iv, cipher.getAuthTag(), ciphertext].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
      await db.knex('partners').insert({ key_id: 'pk_legacy', name: 'Legacy', secret_sealed: v1 });
      await db.knex('knex_migrations').where({ name: '0002_bind_sealed_secrets' }).delete();

      expect(await migrate(db.knex, { secretBox: box })).to.deep.equal(['0002_bind_sealed_secrets']);
      const [row] = await db.knex('partners').where({ key_id: 'pk_legacy' });
      expect(row.secret_sealed).to.match(/^v2\./);
      expect(box.open(row.secret_sealed, partnerSecretOwner('pk_legacy'))).to.equal('pss_sk_legacy-secret-0123456789');
      expect(() => box.open(row.secret_sealed, partnerSecretOwner('pk_other'))).to.throw();
    } finally {
      await db.close();
    }
  });

  it("lists each route's asset keys from the address rows it was created with, then keeps one row per allocated network (migrations 0011, 0012)", async () => {
    const db = await openDatabase({});
    try {
      // The schema before 0011: no asset_keys column; a route's rows, one per asset key, some still empty.
      await migrateThrough(db.knex, '0010_route_address_lookup');
      const partnerId = await insertPartner(db.knex, 'pk_routes');
      const [withRows, withoutRows] = [randomUUID(), randomUUID()];
      await db.knex('permanent_routes').insert([storedRoute(partnerId, withRows), storedRoute(partnerId, withoutRows)]);
      await db.knex('route_addresses').insert([
        { route_id: withRows, asset_key: 'fUSD/ZANO', network: 'ZANO', address: '' },
        { route_id: withRows, asset_key: 'USDT/ETH', network: 'ETH', address: '0xabc' },
        { route_id: withRows, asset_key: 'USDC/ETH', network: 'ETH', address: '0xabc' },
        { route_id: withRows, asset_key: 'BTC/BTC', network: 'BTC', address: '' },
      ]);

      // The migrations after 0012 follow; these two are the ones this test is about.
      expect((await migrate(db.knex)).slice(0, 2)).to.deep.equal(['0011_route_asset_keys', '0012_route_addresses_per_network']);
      const keys = await db.knex('permanent_routes').select('id', 'asset_keys').orderBy('id');
      expect(Object.fromEntries(keys.map((r) => [r.id, r.asset_keys]))).to.deep.equal({
        [withRows]: ['BTC/BTC', 'USDC/ETH', 'USDT/ETH', 'fUSD/ZANO'],
        [withoutRows]: [],
      });
      // The two ETH keys share one row; the empty rows are gone (their keys show '' until allocated).
      expect(await db.knex('route_addresses').select('route_id', 'network', 'address')).to.deep.equal([
        { route_id: withRows, network: 'ETH', address: '0xabc' },
      ]);
      const refused = await db
        .knex('route_addresses')
        .insert({ route_id: withoutRows, network: 'BTC', address: '' })
        .catch((err: { constraint?: string }) => err.constraint);
      expect(refused).to.equal('route_addresses_address_check');
    } finally {
      await db.close();
    }
  });

  it('refuses migration 0012, changing nothing, when a route has two addresses on one network', async () => {
    const db = await openDatabase({});
    try {
      await migrateThrough(db.knex, '0011_route_asset_keys');
      const partnerId = await insertPartner(db.knex, 'pk_split');
      const id = randomUUID();
      await db.knex('permanent_routes').insert(storedRoute(partnerId, id, { asset_keys: ['USDC/ETH', 'USDT/ETH'] }));
      const rows = [
        { route_id: id, asset_key: 'USDC/ETH', network: 'ETH', address: '0xabc' },
        { route_id: id, asset_key: 'USDT/ETH', network: 'ETH', address: '0xdef' },
      ];
      await db.knex('route_addresses').insert(rows);

      const refusal = await migrate(db.knex).then(
        () => 'applied',
        (err: Error) => err.message,
      );
      expect(refusal).to.contain(`route ${id} has several addresses on network ETH`);
      expect(await db.knex('route_addresses').select('route_id', 'asset_key', 'network', 'address').orderBy('asset_key')).to.deep.equal(
        rows,
      );
    } finally {
      await db.close();
    }
  });

  it("moves a waiting bucket's valuation from its deposits to one bucket row, and counts each partner's routes (migration 0013)", async () => {
    const db = await openDatabase({});
    try {
      await migrateThrough(db.knex, '0012_route_addresses_per_network');
      const partnerId = await insertPartner(db.knex, 'pk_buckets');
      const [routeId, idleId] = [randomUUID(), randomUUID()];
      const created = new Date('2026-01-01T00:00:00Z');
      await db
        .knex('permanent_routes')
        .insert([
          storedRoute(partnerId, routeId, { asset_keys: ['BTC/BTC'], created_at: created, updated_at: created }),
          storedRoute(partnerId, idleId, { asset_keys: ['BTC/BTC'], created_at: created, updated_at: created }),
        ]);
      // Two deposits waiting in one bucket: each carries a copy of the valuation, the later one the newest.
      const deposit = (n: number, valuedAt: string, accumulated: string) => ({
        route_id: routeId,
        asset: 'BTC',
        network: 'BTC',
        address: 'bc1q',
        tx_hash: `tx${n}`,
        output_index: 0,
        from_address: 'sender',
        amount: '0.0001',
        amount_base_units: '10000',
        broadcast_at: new Date(valuedAt),
        confirmation_count: 2,
        required_confirmations: 2,
        status: 'accumulating',
        first_seen_at: new Date(valuedAt),
        last_seen_at: new Date(valuedAt),
        confirmed_at: new Date(valuedAt),
        accumulated_usd: accumulated,
        threshold_usd: '25.00',
        valued_at: new Date(valuedAt),
        created_at: new Date(valuedAt),
        updated_at: new Date(valuedAt),
      });
      await db.knex('route_deposits').insert([deposit(1, '2026-01-02T00:00:00Z', '6.80'), deposit(2, '2026-01-03T00:00:00Z', '13.60')]);

      expect(await migrate(db.knex)).to.include('0013_route_buckets_and_limits');
      const buckets = await db
        .knex('route_buckets')
        .select('route_id', 'asset', 'network', db.knex.raw('accumulated_usd::text as accumulated_usd'));
      expect(buckets).to.deep.equal([{ route_id: routeId, asset: 'BTC', network: 'BTC', accumulated_usd: '13.60' }]);
      expect(await db.knex('route_deposits').columnInfo()).to.not.have.any.keys('accumulated_usd', 'threshold_usd', 'valued_at');
      expect(await db.knex('partner_route_counts').select('partner_id', 'routes')).to.deep.equal([{ partner_id: partnerId, routes: 2 }]);
      // A route's last sign of life: its newest deposit, or its creation.
      const active = await db.knex('permanent_routes').select('id', 'active_at');
      expect(Object.fromEntries(active.map((r) => [r.id, r.active_at.toISOString()]))).to.deep.equal({
        [routeId]: '2026-01-03T00:00:00.000Z',
        [idleId]: '2026-01-01T00:00:00.000Z',
      });
    } finally {
      await db.close();
    }
  });

  it('runs concurrent transactions over the socket, each seeing only its own writes until commit', async () => {
    const db = await openDatabase({});
    try {
      await db.knex.raw('create table tx_probe (id int primary key, owner text)');
      await Promise.all(
        [1, 2, 3, 4].map((id) =>
          db.knex.transaction(async (trx) => {
            await trx('tx_probe').insert({ id, owner: `t${id}` });
            const rows = await trx('tx_probe').select('id');
            expect(rows.map((r) => r.id)).to.include(id);
          }),
        ),
      );
      expect(await db.knex('tx_probe').count({ n: '*' })).to.deep.equal([{ n: '4' }]);
    } finally {
      await db.close();
    }
  });
});

/** Provisions a bare partner row (no usable secret) for a migration test; its id. */
async function insertPartner(knex: Knex, keyId: string): Promise<string> {
  const [{ id }] = await knex('partners').insert({ key_id: keyId, name: keyId, secret_sealed: 'x' }, ['id']);
  return id as string;
}

/** A permanent_routes row as any release stored it, with `columns` of a later schema (e.g. asset_keys) added. */
function storedRoute(partnerId: string, id: string, columns: Record<string, unknown> = {}): Record<string, unknown> {
  const at = new Date();
  return {
    id,
    partner_id: partnerId,
    external_user: 'u',
    destination_asset: 'ZANO',
    destination_network: 'ZANO',
    destination_address: `address-${id}`,
    fee_percent: '1',
    markup_percent: '0',
    fee_floor_usd: '1',
    min_swap_usd: '5',
    max_auto_swap_usd: '10000',
    created_at: at,
    updated_at: at,
    ...columns,
  };
}

/** Applies the migrations one at a time up to and including `last`, as a database of an older release has them. */
async function migrateThrough(knex: Knex, last: string): Promise<void> {
  const migrationSource = createMigrationSource({ secretBox: createSecretBox(randomBytes(32)) });
  for (;;) {
    const [, applied] = (await knex.migrate.up({ migrationSource })) as [number, string[]];
    if (applied.length === 0) throw new Error(`no migration named ${last}`);
    if (applied.includes(last)) return;
  }
}
