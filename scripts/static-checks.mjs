// The static checks (format, lint, dependency rules, types, unused code), each an npm script, run two at
// a time. Prints one line per check and the full output of each that failed; with --report FILE, writes
// { checks: [{ name, ok, ms }] } for scripts/test-summary.mjs, which counts each check as one test.
// Exits non-zero when any check failed.
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

const CHECKS = ["format:check", "lint", "deps", "typecheck", "knip"];
const JOBS = 2;

const args = process.argv.slice(2);
const reportIndex = args.indexOf("--report");
const reportFile = reportIndex >= 0 ? args[reportIndex + 1] : undefined;

function run(name) {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn("npm", ["run", "-s", name], { stdio: ["ignore", "pipe", "pipe"], env: process.env });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("error", (error) => {
      output += String(error);
    });
    child.on("close", (code) => resolve({ name, ok: code === 0, ms: Math.round(performance.now() - started), output }));
  });
}

const results = new Array(CHECKS.length);
let next = 0;
async function worker() {
  while (next < CHECKS.length) {
    const i = next++;
    results[i] = await run(CHECKS[i]);
  }
}
await Promise.all(Array.from({ length: JOBS }, worker));

for (const r of results) {
  console.log(`${r.ok ? "✓" : "✗"} ${r.name} (${(r.ms / 1000).toFixed(1)} s)`);
  if (!r.ok) console.log(r.output.trimEnd().replace(/^/gm, "    "));
}
const failed = results.filter((r) => !r.ok).length;
console.log(`static checks: ${results.length - failed} of ${results.length} ok`);

if (reportFile) {
  mkdirSync(path.dirname(reportFile), { recursive: true });
  writeFileSync(reportFile, JSON.stringify({ checks: results.map(({ name, ok, ms }) => ({ name, ok, ms })) }, null, 2));
}
process.exit(failed > 0 ? 1 : 0);
