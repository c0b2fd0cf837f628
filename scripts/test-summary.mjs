// Prints vitest's JSON reports as the one plain line CI reads: `N passed, N failed, N skipped`, the reports added up
// (one per Node line). Each failure is named first, on its own `failed: ...` line (a failed test is followed by the
// start of its failure message, indented), so a CI log's tail says what broke and why.
//
//   node scripts/test-summary.mjs [--failure TEXT]... [[--exit-code N] REPORT]...   (REPORT: .tmp/vitest.json if none)
//
// vitest's own verdict decides, not the tests' statuses alone: a file that failed outside its tests (did not load, a
// beforeAll or afterAll threw; a failed beforeAll leaves its tests `skipped`) is a failure, a missing report (the run
// stopped before vitest wrote it) is a failure, and a report that says `success: false` or a run that exited non-zero
// (`--exit-code`: vitest exits 1 on an unhandled error, which its JSON report does not carry) counts at least one
// failure. `--failure TEXT` adds a failure found outside vitest, such as a service the tests need that did not start.
import { readFileSync } from 'node:fs';

const MESSAGE_LINES = 60;

const failures = [];
const runs = [];
let exitCode;
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--failure') failures.push(args[++i]);
  else if (args[i] === '--exit-code') exitCode = Number(args[++i]);
  else {
    runs.push({ file: args[i], exitCode });
    exitCode = undefined;
  }
}
if (runs.length === 0) runs.push({ file: '.tmp/vitest.json', exitCode });

const sum = { passed: 0, failed: 0, skipped: 0 };
const fail = (line) => {
  console.log(`failed: ${line}`);
  sum.failed += 1;
};
const firstLine = (text) =>
  String(text ?? '')
    .split('\n')[0]
    .slice(0, 200);

for (const text of failures) fail(text);
for (const run of runs) {
  let report;
  try {
    report = JSON.parse(readFileSync(run.file, 'utf8'));
  } catch (error) {
    fail(`${run.file} (no vitest report: the run stopped before vitest wrote one; ${firstLine(error.message)})`);
    continue;
  }
  const before = sum.failed;
  for (const result of report.testResults) {
    const file = result.name.replace(`${process.cwd()}/`, '');
    const failedTests = result.assertionResults.filter((test) => test.status === 'failed');
    for (const test of failedTests) {
      fail(`${file} > ${test.fullName ?? test.title}`);
      // The start of why, indented: a CI log keeps only its tail, and a flaky failure may not come back.
      const why = (test.failureMessages ?? []).join('\n').split('\n').slice(0, MESSAGE_LINES);
      for (const line of why) console.log(`    ${line.slice(0, 300)}`);
    }
    // A file-level error (the file did not load, or a beforeAll or afterAll at its top level threw) is in `message`;
    // a hook inside a describe that threw leaves the file failed with no message and no failed test.
    if (result.status === 'failed' && (result.message || failedTests.length === 0)) {
      const tests = result.assertionResults;
      const unrun = tests.filter((test) => test.status === 'skipped' || test.status === 'pending').length;
      const why = firstLine(result.message) || "see vitest's log";
      if (tests.length === 0) fail(`${file} (did not load: ${why})`);
      else if (unrun === 0) fail(`${file} (a hook failed after its tests ran: ${why})`);
      else
        fail(`${file} (a hook failed: ${why}; ${unrun} of its ${tests.length} tests did not run, counted as skipped)`);
    }
  }
  sum.passed += report.numPassedTests;
  sum.skipped += report.numPendingTests + report.numTodoTests;
  if (sum.failed > before) continue;
  // Nothing above failed, yet vitest says the run did: an unhandled error, which its JSON report does not carry.
  if (report.success === false) fail(`${run.file} (vitest's verdict is failure, but its report names no failed test)`);
  else if (run.exitCode !== undefined && run.exitCode !== 0) {
    fail(
      `${run.file} (the run exited ${run.exitCode} but its report names no failure: an unhandled error? see its log)`,
    );
  }
}
console.log(`${sum.passed} passed, ${sum.failed} failed, ${sum.skipped} skipped`);
