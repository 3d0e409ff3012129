import { expect } from 'chai';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, modeCapabilities } from '../../server/config.js';
import { resolveSecretsKey } from '../../server/secrets-key.js';

describe('resolveSecretsKey', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'secrets-key-')), 'data');
  });
  afterEach(() => fs.rm(path.dirname(dataDir), { recursive: true, force: true }));

  it('uses SECRETS_KEY when it is set', () => {
    const hex = 'ab'.repeat(32);
    expect(resolveSecretsKey({ secretsKey: hex, secretsKeyFallback: false, dataDir }).toString('hex')).to.equal(hex);
  });

  it('in sandbox mode without SECRETS_KEY, generates a private key file once and reuses it', async () => {
    const config = loadConfig({ DATA_DIR: dataDir });
    const first = resolveSecretsKey(config);
    expect(first).to.have.length(32);
    expect((await fs.stat(path.join(dataDir, 'secrets.key'))).mode & 0o777).to.equal(0o600);
    expect(resolveSecretsKey(config).equals(first)).to.equal(true);
  });

  it('in production mode without SECRETS_KEY, refuses and writes nothing', async () => {
    const config = { secretsKey: undefined, dataDir, ...modeCapabilities('production') };
    expect(() => resolveSecretsKey(config)).to.throw('SECRETS_KEY is required outside sandbox mode');
    expect(await fs.stat(dataDir).catch(() => undefined)).to.equal(undefined);
  });
});
