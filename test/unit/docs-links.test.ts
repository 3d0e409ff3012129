/**
 * The documentation's links hold: every relative link in README.md, sdk/README.md and docs/*.md names a file
 * that exists and, with a `#anchor`, a heading of that file (GitHub's slug of it); every section of
 * docs/architecture.md the code cites (`docs/architecture.md#lifecycle`, `#production` after it) exists; and no
 * source file cites "DESIGN n", a document that is not in the repository.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DOCS = ['README.md', 'sdk/README.md', ...fs.readdirSync(path.join(ROOT, 'docs')).map((name) => `docs/${name}`)].filter((f) =>
  f.endsWith('.md'),
);

/** GitHub's anchor of a heading: its text (a link's label) in lower case, punctuation but `-` and `_` removed, spaces to `-`. */
function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a markdown file's headings (outside fenced code), with GitHub's -1, -2 for repeats. */
function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = !fenced && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = slug(heading[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** The relative links of a markdown file (outside fenced code and inline code), as written. */
function linksOf(file: string): string[] {
  const links: string[] = [];
  let fenced = false;
  for (const line of fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const text = line.replace(/`[^`]*`/g, '');
    for (const match of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1];
      if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) links.push(target);
    }
  }
  return links;
}

describe('documentation links', () => {
  for (const file of DOCS) {
    it(`every relative link in ${file} resolves`, () => {
      const broken: string[] = [];
      for (const link of linksOf(file)) {
        const [target, anchor] = link.split('#') as [string, string | undefined];
        const resolved = target === '' ? file : path.normalize(path.join(path.dirname(file), decodeURIComponent(target)));
        if (!fs.existsSync(path.join(ROOT, resolved))) {
          broken.push(`${link} (no file ${resolved})`);
          continue;
        }
        if (anchor !== undefined && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor.toLowerCase())) {
          broken.push(`${link} (no heading #${anchor} in ${resolved})`);
        }
      }
      expect(broken, `broken links in ${file}`).to.deep.equal([]);
    });
  }

  it('cites only sections docs/architecture.md has, and no "DESIGN n"', () => {
    const sources = execFileSync('git', ['ls-files', 'server', 'scripts', 'sdk/src', 'test', 'deploy'], { cwd: ROOT, encoding: 'utf8' })
      .split('\n')
      .filter((f) => /\.(ts|cjs|js|sql|ya?ml)$/.test(f));
    const anchors = anchorsOf('docs/architecture.md');
    const missing: string[] = [];
    const design: string[] = [];
    for (const file of sources) {
      const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
      for (const match of text.matchAll(/docs\/architecture\.md#([a-z0-9-]+)((?:, #[a-z0-9-]+)*)/g)) {
        const cited = [match[1], ...match[2].split(', #').filter(Boolean)];
        for (const anchor of cited) if (!anchors.has(anchor)) missing.push(`${file}: #${anchor}`);
      }
      for (const match of text.matchAll(/\bDESIGN(?: section)? \d+(?:\.\d+)?/g)) design.push(`${file}: ${match[0]}`);
    }
    expect(missing, 'sections cited that docs/architecture.md lacks').to.deep.equal([]);
    expect(design, 'citations of a design document that is not in the repository').to.deep.equal([]);
  });

  it('reads GitHub anchors as GitHub makes them', () => {
    expect(slug('Errors, limits and health')).to.equal('errors-limits-and-health');
    expect(slug('The chain boundary: nothing lost, nothing leaked, nothing trusted')).to.equal(
      'the-chain-boundary-nothing-lost-nothing-leaked-nothing-trusted',
    );
    expect(slug('Real chains (`SERVICE_MODE=production`)')).to.equal('real-chains-service_modeproduction');
    expect(slug('In the browser: `createSwapViewer`')).to.equal('in-the-browser-createswapviewer');
  });
});
