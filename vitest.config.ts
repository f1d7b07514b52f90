import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts"],
    exclude: ["e2e/**", "node_modules/**"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // One Postgres server for the run; the tests that need it create their own database on it.
    globalSetup: ["tests/support/global-services.ts"],
  },
});
