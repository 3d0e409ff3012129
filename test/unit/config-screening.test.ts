import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../server/config.js';
import { isDenylisted } from '../../server/domain/screening.js';

const EVM = '0x71C7656EC7ab88b098defB751B7401B5f6d8976F';

describe('config: SCREENING_*', () => {
  let dir: string;
  before(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pss-screening-config-'))));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    const at = path.join(dir, name);
    fs.writeFileSync(at, text);
    return at;
  };
  const problemsOf = (env: Record<string, string>): string[] => {
    try {
      loadConfig(env);
    } catch (err) {
      if (err instanceof ConfigError) return err.problems;
      throw err;
    }
    return [];
  };

  it('is off by default, and fails closed with a 2000 ms limit once a provider is set', () => {
    expect(loadConfig({}).screening).to.deep.equal({ denylist: undefined, url: undefined, timeoutMs: 2000, failMode: 'closed' });
    const config = loadConfig({ SCREENING_URL: 'https://screen.example.com/v1/check', SCREENING_TIMEOUT_MS: '500' });
    expect(config.screening).to.include({ url: 'https://screen.example.com/v1/check', timeoutMs: 500, failMode: 'closed' });
  });

  it('reads the denylist file once, at start', () => {
    const { denylist } = loadConfig({ SCREENING_DENYLIST_FILE: file('ok.txt', `# list\nETH:${EVM}\n`) }).screening;
    expect(isDenylisted(denylist!, 'ETH', EVM.toLowerCase())).to.equal(true);
  });

  it('stops the process on a bad line, naming the variable, the file and the line', () => {
    const bad = file('bad.txt', `${EVM}\n\nETH:not-an-address\n`);
    const [problem] = problemsOf({ SCREENING_DENYLIST_FILE: bad });
    expect(problem).to.match(/^SCREENING_DENYLIST_FILE .*bad\.txt line 3 /);
  });

  it('refuses a missing file, a fail mode other than closed or open, and a timeout out of range', () => {
    const problems = problemsOf({
      SCREENING_DENYLIST_FILE: path.join(dir, 'missing.txt'),
      SCREENING_FAIL_MODE: 'lenient',
      SCREENING_TIMEOUT_MS: '0',
      SCREENING_URL: 'ftp://screen.example.com',
    });
    expect(problems.join('\n'))
      .to.match(/SCREENING_DENYLIST_FILE=.*missing\.txt" cannot be read/)
      .and.match(/SCREENING_FAIL_MODE="lenient" must be one of closed, open/)
      .and.match(/SCREENING_TIMEOUT_MS="0" must be an integer from 1 to 60000/)
      .and.match(/SCREENING_URL must be a URL/);
  });
});
