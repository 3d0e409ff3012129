import { createPublicKey } from 'node:crypto';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { generateSigningKeyPem, GENERATED_SIGNING_KEY_FILE, resolveSigningKeys } from '../../server/signing-keys.js';

describe('resolveSigningKeys', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'pss-signing-keys-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));
  const sandbox = (dataDir: string) => ({
    signingKeyFile: undefined,
    signingPreviousKeysFile: undefined,
    signingKeyFallback: true,
    dataDir,
  });

  it('generates a key into DATA_DIR on the first start of a sandbox (mode 0600), and reuses it on the next', async () => {
    const dataDir = path.join(dir, 'data');
    const first = resolveSigningKeys(sandbox(dataDir));
    const file = path.join(dataDir, GENERATED_SIGNING_KEY_FILE);
    expect((await stat(file)).mode & 0o777).to.equal(0o600);
    const again = resolveSigningKeys(sandbox(dataDir));
    expect(again.signer.kid).to.equal(first.signer.kid);
    expect(again.keySet).to.deep.equal(first.keySet);
  });

  it('refuses to start without SIGNING_KEY_FILE where there is no fallback (production)', () => {
    expect(() => resolveSigningKeys({ ...sandbox(dir), signingKeyFallback: false })).to.throw(/SIGNING_KEY_FILE is required/);
  });

  it('serves the current key first and each previous one after it, a key listed twice once', async () => {
    const current = path.join(dir, 'current.pem');
    const currentPem = generateSigningKeyPem();
    await writeFile(current, currentPem, { mode: 0o600 });
    const oldPublic = createPublicKey(generateSigningKeyPem()).export({ format: 'pem', type: 'spki' }) as string;
    const previous = path.join(dir, 'previous.pem');
    await writeFile(previous, oldPublic + (createPublicKey(currentPem).export({ format: 'pem', type: 'spki' }) as string));
    const keys = resolveSigningKeys({
      ...sandbox(dir),
      signingKeyFile: current,
      signingPreviousKeysFile: previous,
      signingKeyFallback: false,
    });
    expect(keys.keySet.keys).to.have.length(2);
    expect(keys.keySet.keys[0].kid).to.equal(keys.signer.kid);
    expect(keys.keySet.keys[1].x).to.equal(createPublicKey(oldPublic).export({ format: 'jwk' }).x);
  });
});
