/**
 * Seams a maintainer relies on, checked in the sources: config.ts is the only reader of the environment
 * (production's networks and prices are parsed from the `env` it hands on); the job engine's parts hold no
 * database handle (their statements are store/job-store.ts); and nothing but the assembly starts the swap
 * machinery, so the process and the tests run the same service.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Every .ts file under `dir` (relative to the repository), as [path, text]. */
function sources(dir: string): Array<[string, string]> {
  const files: Array<[string, string]> = [];
  const walk = (at: string) => {
    for (const entry of fs.readdirSync(path.join(ROOT, at), { withFileTypes: true })) {
      const rel = `${at}/${entry.name}`;
      if (entry.isDirectory()) walk(rel);
      else if (entry.name.endsWith('.ts')) files.push([rel, fs.readFileSync(path.join(ROOT, rel), 'utf8')]);
    }
  };
  walk(dir);
  return files;
}

describe('the house', () => {
  it('reads the environment in server/config.ts only', () => {
    const readers = sources('server')
      .filter(([, text]) => /process\.env\b/.test(text))
      .map(([file]) => file);
    expect(readers).to.deep.equal(['server/config.ts']);
  });

  it('hands production configuration the environment only from config.ts', () => {
    const callers = sources('server')
      .filter(([, text]) => /\breadProductionConfig\(/.test(text))
      .map(([file]) => file)
      .sort();
    expect(callers).to.deep.equal(['server/config.ts', 'server/production-config.ts']);
  });

  it('gives the job engine and its parts no database handle: they import nothing of knex', () => {
    const parts = ['engine', 'swap-steps', 'payout-sends', 'unstarted-sweep', 'route-deposits', 'webhook-jobs'];
    for (const part of parts) {
      const text = fs.readFileSync(path.join(ROOT, `server/jobs/${part}.ts`), 'utf8');
      expect(text, part).not.to.match(/from 'knex'/);
    }
  });

  it('starts the swap machinery only through server/assembly.ts, for main.ts and the tests alike', () => {
    const starters = [...sources('server'), ...sources('test/support')]
      .filter(([, text]) => /\bstartSwapEngine\(/.test(text))
      .map(([file]) => file)
      .sort();
    expect(starters).to.deep.equal(['server/assembly.ts', 'server/swap-engine.ts']);
    for (const file of ['server/main.ts', 'test/support/server.ts']) {
      expect(fs.readFileSync(path.join(ROOT, file), 'utf8'), file).to.match(/\bassembleService\(/);
    }
  });
});
