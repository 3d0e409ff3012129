import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { freePort, spawnGroup, waitForHttp, type Child } from '../support/process.js';
import { expectError, readJson } from '../support/http.js';
import { signedFetch, type SignerOptions } from '../support/signer.js';
import { OS_USER, type TrailEntry } from '../support/operator-trail.js';
import { compiledScript } from '../support/build.js';

const root = path.resolve(import.meta.dirname, '../..');

const run = promisify(execFile);

describe('the partners CLI (npm run partners) next to a running server', function () {
  this.timeout(120_000);
  let dataDir: string;
  let server: Child;
  let origin: string;
  let env: Record<string, string>;

  const cliWithInput = async (input: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> => {
    try {
      const pending = run(process.execPath, [...(await compiledScript('partners')), ...args], {
        cwd: root,
        env: { ...process.env, ...env },
      });
      pending.child.stdin?.end(input);
      const { stdout, stderr } = await pending;
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };
  const cli = (...args: string[]) => cliWithInput('', ...args);
  /** The operator action trail about `target`, newest first, as `npm run ops -- audit list --json` prints it. */
  const trailOf = async (target: string): Promise<TrailEntry[]> => {
    const { stdout } = await run(process.execPath, [...(await compiledScript('ops')), 'audit', 'list', '--target', target, '--json'], {
      cwd: root,
      env: { ...process.env, ...env },
    });
    return JSON.parse(stdout) as TrailEntry[];
  };
  const markup = (signer: SignerOptions) => readJson(signedFetch(origin, signer, 'GET', '/api/v1/partner/markup'));

  before(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'pss-cli-'));
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    // The CLI always uses the embedded database here, whatever DATABASE_URL the suite runs with.
    env = {
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      SECRETS_KEY: randomBytes(32).toString('hex'),
      PUBLIC_ORIGIN: origin,
      LOG_LEVEL: 'warn',
      PORT: String(port),
    };
    server = spawnGroup(process.execPath, ['--import', 'tsx', 'server/main.ts'], env, root);
    await waitForHttp(`${origin}/api/v1/health`, 60_000, server);
  });
  after(async () => {
    await server.stop();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('creates a partner whose printed credentials the running server accepts', async () => {
    const created = await cli('create', '--name', 'Acme Wallet', '--json');
    expect(created.code, created.stderr).to.equal(0);
    const issued = JSON.parse(created.stdout);
    expect(issued).to.have.keys('partnerId', 'keyId', 'secret');
    expect((await markup({ keyId: issued.keyId, secret: issued.secret, audience: origin })).status).to.equal(200);
  });

  it('creates a partner with a chosen key id and secret, and refuses a taken key id', async () => {
    const secret = 'pss_sk_chosen-by-the-operator-0123456789';
    const created = await cli('create', '--name', 'Globex', '--key-id', 'pk_globex', '--secret', secret, '--json');
    expect(JSON.parse(created.stdout)).to.include({ keyId: 'pk_globex', secret });
    const again = await cli('create', '--name', 'Globex 2', '--key-id', 'pk_globex');
    expect(again.code).to.equal(1);
    expect(again.stderr).to.contain('pk_globex already exists');
  });

  it('reads a chosen secret from standard input with --secret-stdin, and warns when --secret is used', async () => {
    const secret = 'pss_sk_from-standard-input-0123456789';
    const created = await cliWithInput(`${secret}\n`, 'create', '--name', 'Hooli', '--key-id', 'pk_hooli', '--secret-stdin', '--json');
    expect(created.code, created.stderr).to.equal(0);
    expect(JSON.parse(created.stdout)).to.include({ keyId: 'pk_hooli', secret });
    expect(created.stderr).not.to.contain('process list');
    expect((await markup({ keyId: 'pk_hooli', secret, audience: origin })).status).to.equal(200);

    const rotated = await cliWithInput(
      'pss_sk_rotated-from-stdin-0123456789',
      'rotate-secret',
      '--key-id',
      'pk_hooli',
      '--secret-stdin',
      '--json',
    );
    expect(JSON.parse(rotated.stdout).secret).to.equal('pss_sk_rotated-from-stdin-0123456789');

    const visible = await cli('rotate-secret', '--key-id', 'pk_hooli', '--secret', 'pss_sk_visible-in-ps-0123456789');
    expect(visible.code).to.equal(0);
    expect(visible.stderr).to.contain('--secret is visible to every user of this machine in the process list');
    expect((await cli('--help')).stdout).to.contain('--secret-stdin reads a chosen secret from standard input');
    expect((await cli('create', '--name', 'x', '--secret', 'a', '--secret-stdin')).stderr).to.contain('not both');
  });

  it('lists partners without their secrets', async () => {
    const listed = await cli('list', '--json');
    const partners = JSON.parse(listed.stdout) as Array<Record<string, string>>;
    expect(partners.map((p) => p.keyId)).to.include.members(['demo', 'pk_globex']);
    expect(listed.stdout).not.to.contain('pss_sk_');
  });

  it('rotates a secret: the old one stops working and the new one works', async () => {
    const created = JSON.parse((await cli('create', '--name', 'Initech', '--json')).stdout);
    const rotated = await cli('rotate-secret', '--key-id', created.keyId, '--json');
    const fresh = JSON.parse(rotated.stdout);
    expect(fresh.secret).to.not.equal(created.secret);
    expectError(await markup({ keyId: created.keyId, secret: created.secret, audience: origin }), 401, 'invalid_signature');
    expect((await markup({ keyId: created.keyId, secret: fresh.secret, audience: origin })).status).to.equal(200);
  });

  it('disables and re-enables a partner', async () => {
    const created = JSON.parse((await cli('create', '--name', 'Umbrella', '--json')).stdout);
    const signer = { keyId: created.keyId, secret: created.secret, audience: origin };
    expect((await cli('disable', '--key-id', created.keyId, '--reason', 'unpaid invoices')).code).to.equal(0);
    expectError(await markup(signer), 401, 'partner_disabled');
    expect((await cli('enable', '--key-id', created.keyId, '--reason', 'invoices paid')).code).to.equal(0);
    expect((await markup(signer)).status).to.equal(200);
  });

  describe('the operator action trail', () => {
    it('records create, rotate-secret, disable and enable with actor, action, target, reason, time and outcome', async () => {
      const before = Date.now();
      const created = await cli(
        'create',
        '--name',
        'Soylent',
        '--key-id',
        'pk_soylent',
        '--reason',
        'contract signed',
        '--actor',
        'erin',
        '--json',
      );
      expect(created.code, created.stderr).to.equal(0);
      const { partnerId, secret } = JSON.parse(created.stdout);
      const rotated = await cli('rotate-secret', '--key-id', 'pk_soylent', '--json');
      expect(rotated.code, rotated.stderr).to.equal(0);
      expect((await cli('disable', '--key-id', 'pk_soylent', '--reason', 'leaked key reported', '--actor', 'frank')).code).to.equal(0);
      expect((await cli('enable', '--key-id', 'pk_soylent', '--reason', 'new secret deployed', '--actor', 'frank')).code).to.equal(0);

      const trail = await trailOf('pk_soylent');
      expect(trail.map(({ actor, action, target, reason, outcome }) => ({ actor, action, target, reason, outcome }))).to.deep.equal([
        { actor: 'frank', action: 'partner.enable', target: 'pk_soylent', reason: 'new secret deployed', outcome: 'succeeded' },
        { actor: 'frank', action: 'partner.disable', target: 'pk_soylent', reason: 'leaked key reported', outcome: 'succeeded' },
        // No --actor: the OS user running the command; no --reason: optional for a rotation.
        { actor: OS_USER, action: 'partner.rotate_secret', target: 'pk_soylent', reason: null, outcome: 'succeeded' },
        { actor: 'erin', action: 'partner.create', target: 'pk_soylent', reason: 'contract signed', outcome: 'succeeded' },
      ]);
      expect(trail.map((e) => e.details)).to.deep.equal([
        { partnerId, from: 'disabled', to: 'active' },
        { partnerId, from: 'active', to: 'disabled' },
        { partnerId },
        { partnerId, name: 'Soylent' },
      ]);
      for (const entry of trail) expect(Date.parse(entry.actedAt)).to.be.within(before - 1000, Date.now() + 1000);
      // The trail never holds a secret.
      const text = JSON.stringify(trail);
      expect(text).not.to.contain(secret).and.not.to.contain(JSON.parse(rotated.stdout).secret).and.not.to.contain('pss_sk_');
    });

    it('records a refused action (a taken key id, an unknown key) as refused, and no success, changing nothing', async () => {
      expect((await cli('create', '--name', 'Tyrell', '--key-id', 'pk_tyrell')).code).to.equal(0);
      // The second create's insert fails inside its transaction: it rolls back, and is recorded as refused.
      const taken = await cli('create', '--name', 'Tyrell again', '--key-id', 'pk_tyrell', '--reason', 'duplicate');
      expect(taken.code).to.equal(1);
      const trail = await trailOf('pk_tyrell');
      expect(trail.map((e) => [e.action, e.outcome, e.reason])).to.deep.equal([
        ['partner.create', 'refused', 'duplicate'],
        ['partner.create', 'succeeded', null],
      ]);
      expect(trail[0].details).to.have.nested.property('error.code', 'conflict');
      const partners = JSON.parse((await cli('list', '--json')).stdout) as Array<{ keyId: string; name: string }>;
      expect(partners.filter((p) => p.keyId === 'pk_tyrell').map((p) => p.name)).to.deep.equal(['Tyrell']);

      expect((await cli('rotate-secret', '--key-id', 'pk_nobody')).code).to.equal(1);
      expect((await cli('disable', '--key-id', 'pk_nobody', '--reason', 'x')).code).to.equal(1);
      expect((await trailOf('pk_nobody')).map((e) => [e.action, e.outcome])).to.deep.equal([
        ['partner.disable', 'refused'],
        ['partner.rotate_secret', 'refused'],
      ]);
    });

    it('needs a reason to disable or enable, and records nothing without one', async () => {
      expect((await cli('create', '--name', 'Wonka', '--key-id', 'pk_wonka')).code).to.equal(0);
      const bare = await cli('disable', '--key-id', 'pk_wonka');
      expect(bare.code).to.equal(2);
      expect(bare.stderr).to.contain('disable needs --reason TEXT');
      expect((await cli('enable', '--key-id', 'pk_wonka', '--reason', '  ')).code).to.equal(2);
      expect((await trailOf('pk_wonka')).map((e) => e.action)).to.deep.equal(['partner.create']);
    });
  });

  it('explains its usage on a wrong command and exits 2', async () => {
    const wrong = await cli('frobnicate');
    expect(wrong.code).to.equal(2);
    expect(wrong.stderr).to.contain('unknown command: frobnicate').and.contain('usage: npm run partners');
    expect((await cli('disable')).stderr).to.contain('disable needs --key-id');
  });
});
