// Prints vitest's JSON report as the one plain line CI reads: `N passed, N failed, N skipped`.
// `--total a.json b.json ...` adds several reports up (one per Node line); a missing report counts as one failure.
// Each failed test is named first, on its own `failed: <file> > <test>` line followed by the start of its failure
// message (indented), so a CI log's tail says what broke and why.
import { readFileSync } from 'node:fs';

const MESSAGE_LINES = 60;
const args = process.argv.slice(2);
const total = args[0] === '--total';
const files = total ? args.slice(1) : [args[0] ?? '.tmp/vitest.json'];

const sum = { passed: 0, failed: 0, skipped: 0 };
for (const file of files) {
  let report;
  try {
    report = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    if (!total) throw new Error(`no vitest report at ${file}`);
    sum.failed += 1;
    continue;
  }
  for (const result of report.testResults) {
    const file = result.name.replace(`${process.cwd()}/`, '');
    if (result.status === 'failed' && result.assertionResults.length === 0) {
      console.log(
        `failed: ${file} (did not load: ${String(result.message ?? '')
          .split('\n')[0]
          .slice(0, 200)})`,
      );
    }
    for (const test of result.assertionResults) {
      if (test.status !== 'failed') continue;
      console.log(`failed: ${file} > ${test.fullName ?? test.title}`);
      // The start of why, indented: a CI log keeps only its tail, and a flaky failure may not come back.
      const why = (test.failureMessages ?? []).join('\n').split('\n').slice(0, MESSAGE_LINES);
      for (const line of why) console.log(`    ${line.slice(0, 300)}`);
    }
  }
  sum.passed += report.numPassedTests;
  sum.failed += report.numFailedTests;
  // A file that failed to load has no test results of its own; count it, or a broken suite would read as green.
  sum.failed += report.testResults.filter((r) => r.status === 'failed' && r.assertionResults.length === 0).length;
  sum.skipped += report.numPendingTests + report.numTodoTests;
}
console.log(`${sum.passed} passed, ${sum.failed} failed, ${sum.skipped} skipped`);
