// Mutation testing of the engine and the tool layer with StrykerJS and its Vitest runner:
// `npm run mutation` (not in CI; the whole run takes hours on 2 cores). A subset:
//   npm run mutation -- --mutate server/engine/triggers.ts,server/engine/timing-gate.ts
// Incremental: a re-run only tests mutants whose code or covering tests changed. Reports in reports/.
/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
export default {
  packageManager: "npm",
  testRunner: "vitest",
  plugins: ["@stryker-mutator/vitest-runner"],
  vitest: { configFile: "vitest.mutation.config.ts", related: false },
  mutate: ["server/engine/**/*.ts", "server/tools/**/*.ts"],
  coverageAnalysis: "perTest",
  // Each worker runs its own Vitest; two fit a 2-core machine.
  concurrency: 2,
  // Engine tests talk HTTP on loopback: generous timeouts on a busy machine.
  timeoutMS: 15_000,
  timeoutFactor: 2,
  // Module-level mutants (constants, prompt tables) would need a full reload and every test per mutant.
  ignoreStatic: true,
  incremental: true,
  incrementalFile: "reports/mutation/stryker-incremental.json",
  tempDirName: "reports/.stryker-tmp",
  reporters: ["clear-text", "progress", "html", "json"],
  htmlReporter: { fileName: "reports/mutation/index.html" },
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  clearTextReporter: { allowColor: false, logTests: false },
  thresholds: { high: 80, low: 60, break: null },
};
