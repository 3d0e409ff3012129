/**
 * Mocha's spec reporter, plus the wall time of each test file (its top-level suites, hooks included) and,
 * at the end, the slowest files: where the time of `make test` goes, in every CI log.
 */
'use strict';
const path = require('node:path');
const Mocha = require('mocha');

/** How many of the slowest files are listed at the end. */
const SHOWN = 15;

class TimedSpecReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const started = new Map();
    const seconds = new Map();
    runner.on('suite', (suite) => {
      if (suite.file && suite.parent && suite.parent.root) started.set(suite, performance.now());
    });
    runner.on('suite end', (suite) => {
      const at = started.get(suite);
      if (at === undefined) return;
      seconds.set(suite.file, (seconds.get(suite.file) ?? 0) + (performance.now() - at) / 1000);
    });
    runner.once('end', () => {
      const total = [...seconds.values()].reduce((sum, s) => sum + s, 0);
      const slowest = [...seconds].sort((a, b) => b[1] - a[1]).slice(0, SHOWN);
      console.log(`\n  slowest test files (of ${seconds.size}, ${(total / 60).toFixed(1)} min in all):`);
      for (const [file, s] of slowest) console.log(`  ${s.toFixed(1).padStart(7)} s  ${path.relative(process.cwd(), file)}`);
    });
  }
}

module.exports = TimedSpecReporter;
