// The results as JUnit XML, the format CI systems (GitHub Actions reporters, GitLab's `artifacts:reports:junit`)
// show per test: one test suite per operation, one test case per check, a failure element per failing check with
// the promise of the contract it broke, the problems and their curl reproductions.
import { escapeControls } from './control-characters.js';
import { curlOf } from './curl.js';
import { CHECKS, type Results } from './report.js';

// Beyond the controls, XML 1.0 cannot hold lone surrogates and U+FFFE, U+FFFF, even as references.
const NOT_XML = /[\ufffe\uffff]|[\ud800-\udfff]/gu;

function xmlText(text: string): string {
  return escapeControls(text, '\t\n\r')
    .replace(NOT_XML, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');
}

export interface JunitContext {
  seed: number;
  seconds: number;
}

/** The JUnit XML document of `results`. */
export function junitXml(results: Results, { seed, seconds }: JunitContext): string {
  const rows = results.rows();
  const operations = [...new Set(rows.map((row) => row.operationId))];
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="plant-store conformance" tests="${rows.length}" failures="${rows.filter((r) => r.failed > 0).length}" time="${seconds.toFixed(3)}">`,
  ];
  for (const operationId of operations) {
    const own = rows.filter((row) => row.operationId === operationId);
    const skipped = results.skipped.filter((skip) => skip.operationId === operationId);
    lines.push(
      `  <testsuite name="${xmlText(operationId)}" tests="${own.length + skipped.length}" failures="${own.filter((r) => r.failed > 0).length}" skipped="${skipped.length}">`,
      `    <properties><property name="seed" value="${seed}"/></properties>`,
    );
    for (const row of own) {
      const name = `${xmlText(row.check)}`;
      if (row.failed === 0) {
        lines.push(`    <testcase classname="${xmlText(operationId)}" name="${name}"/>`);
        continue;
      }
      const details = results.failures
        .filter((failure) => failure.operationId === operationId && failure.check === row.check)
        .map(
          (failure) =>
            `${failure.message}\n${failure.exchanges.map((exchange) => `  ${curlOf(exchange.request, exchange.url)}`).join('\n')}`,
        )
        .join('\n\n');
      lines.push(
        `    <testcase classname="${xmlText(operationId)}" name="${name}">`,
        `      <failure message="${xmlText(`${row.failed} of ${row.passed + row.failed} failed`)}" type="${name}">${xmlText(`The promise it broke: ${CHECKS[row.check]}.\n\n${details}\n\nreplay: --seed ${seed}`)}</failure>`,
        '    </testcase>',
      );
    }
    for (const skip of skipped) {
      lines.push(
        `    <testcase classname="${xmlText(operationId)}" name="${xmlText(skip.check)}"><skipped message="${xmlText(skip.why)}"/></testcase>`,
      );
    }
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>', '');
  return lines.join('\n');
}
