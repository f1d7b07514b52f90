// The tests StrykerJS runs against each mutant of server/engine and server/tools (npm run mutation):
// the in-process engine and tool tests. Suites that drive child servers (server, fault, load, cli)
// run the code outside the test process, where a mutant is never active, so they only cost time.
import { defineConfig } from "vitest/config";
import base from "./vitest.config";

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: [
      "tests/engine/**/*.test.ts",
      "tests/tools/**/*.test.ts",
      "tests/mcp/engine.test.ts",
      "tests/plugins/engine.test.ts",
    ],
  },
});
