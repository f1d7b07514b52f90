// Browser tests against the real server (e2e/support/serve.ts: fresh SQLite, simulated model) in
// Debian's Chromium; Playwright never downloads a browser here (e2e/support/chromium.ts).
import { defineConfig } from "@playwright/test";
import { chromiumLaunchOptions } from "./e2e/support/chromium";
import { E2E_BASE } from "./e2e/support/env";

export default defineConfig({
  testDir: "e2e",
  testMatch: "**/*.spec.ts",
  // The browser measurements (figures in test-results/perf.json) belong to the benchmark, not the
  // gating suite: `npm run bench:browser` runs them.
  testIgnore: process.env.MAISAKA_BENCH_BROWSER === "1" ? [] : ["**/perf.spec.ts"],
  workers: 1,
  fullyParallel: false,
  retries: 0,
  timeout: 90_000,
  expect: { timeout: 15_000 },
  outputDir: "test-results/playwright",
  reporter: process.env.PLAYWRIGHT_JSON
    ? [["list"], ["json", { outputFile: process.env.PLAYWRIGHT_JSON }]]
    : [["list"]],
  use: {
    baseURL: E2E_BASE,
    viewport: { width: 1400, height: 900 },
    screenshot: "only-on-failure",
    trace: "retain-on-failure",
    launchOptions: chromiumLaunchOptions,
  },
  webServer: {
    command: "node --import tsx e2e/support/serve.ts",
    url: `${E2E_BASE}/api/health`,
    reuseExistingServer: false,
    timeout: 240_000,
    stdout: "pipe",
    stderr: "pipe",
    gracefulShutdown: { signal: "SIGTERM", timeout: 15_000 },
  },
});
