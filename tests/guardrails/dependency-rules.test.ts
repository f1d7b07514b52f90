// The dependency rules of .dependency-cruiser.mjs fire: a scratch tree with one forbidden import per
// rule (and the allowed imports next to them) is cruised with the project's config by the real CLI.
// The room rules come from the real room table (.dependency-rooms.mjs), so the scratch tree's folders
// are real rooms' names.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";

const ROOT = resolve(import.meta.dirname, "../..");
const DEPCRUISE = join(ROOT, "node_modules/.bin/depcruise");

/** Stand-ins for packages, so the scratch tree resolves them inside itself (left-pad is not declared). */
const PACKAGES = { dependencies: ["socket.io", "openai", "next", "@prisma/client"], devDependencies: ["vitest"] };
const UNDECLARED = "left-pad";

const FILES: Record<string, string> = {
  "generated/prisma/client.ts": "export const PrismaClient = 1;",
  "server/engine/index.ts": 'export { loop } from "./loop";',
  "server/engine/loop.ts": [
    'import { Server } from "socket.io";',
    'import OpenAI from "openai";',
    'import next from "next";',
    'import { PrismaClient } from "../../generated/prisma/client";',
    'import { table } from "../db/table";',
    'import { ping } from "./ping";',
    'import { registry } from "../tools/registry";',
    'import { recordUsage } from "../llm/usage";',
    "export const loop = [Server, OpenAI, next, PrismaClient, table, ping, registry, recordUsage];",
  ].join("\n"),
  "server/engine/ping.ts": 'import { loop } from "./loop";\nexport const ping = () => loop;',
  "server/tools/registry.ts": "export const registry = 1;",
  "server/tools/steer.ts": 'import { loop } from "../engine/index";\nexport const steer = () => loop;',
  "server/llm/usage.ts": 'import { table } from "../db/table";\nexport const recordUsage = table;',
  "server/db/table.ts":
    'import { PrismaClient } from "../../generated/prisma/client";\nexport const table = PrismaClient;',
  "server/db/uses-mcp.ts": 'import { gateway } from "../mcp/gateway";\nexport const x = gateway;',
  "server/mcp/gateway.ts": [
    'import { loop } from "../engine/index";',
    'import { ping } from "../engine/ping";',
    'import { table } from "../db/table";',
    "export const gateway = [loop, ping, table];",
  ].join("\n"),
  "server/plugins/host.ts": 'import { gateway } from "../mcp/gateway";\nexport const host = gateway;',
  "server/plugins/sdk/index.ts": "export const definePlugin = 1;",
  "server/realtime/socket.ts": 'import { recordUsage } from "../llm/usage";\nexport const socket = recordUsage;',
  "server/http/route.ts": [
    'import { main } from "../cli/main";',
    'import { PrismaClient } from "../../generated/prisma/client";',
    'import { expect } from "vitest";',
    'import { gone } from "./missing";',
    'import pad from "left-pad";',
    "export const route = [main, PrismaClient, expect, gone, pad];",
  ].join("\n"),
  "server/cli/main.ts": "export const main = 1;",
  "server/kernel/clock.ts": 'import { loop } from "../engine/index";\nexport const clock = loop;',
  "server/kernel/logger.ts": "export const logger = 1;",
  "server/engine/timed.ts": 'import { logger } from "../kernel/logger";\nexport const timed = logger;',
  "server/newroom/first.ts": 'import { logger } from "../kernel/logger";\nexport const first = logger;',
  "lib/schema.ts":
    'import { table } from "../server/db/table";\nimport { api } from "./client/api";\nexport const s = [table, api];',
  "lib/client/api.ts": "export const api = 1;",
  "components/sessions/Typed.tsx": 'import type { table } from "../../server/db/table";\nexport type T = typeof table;',
  "components/sessions/Inline.tsx":
    'import { type table } from "../../server/db/table";\nexport type T = typeof table;',
  "components/sessions/Valued.tsx": 'import { table } from "../../server/db/table";\nexport const v = table;',
  "plugins/dice/index.ts": [
    'import { definePlugin } from "../../server/plugins/sdk/index";',
    'import { loop } from "../../server/engine/index";',
    "export const dice = [definePlugin, loop];",
  ].join("\n"),
};

const violationSchema = z.object({
  from: z.string(),
  to: z.string(),
  rule: z.object({ name: z.string() }),
});
const outputSchema = z.object({ summary: z.object({ violations: z.array(violationSchema) }) });

let dir = "";
let found: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "maisaka-deprules-"));
  const write = (file: string, text: string) => {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  };
  for (const [file, text] of Object.entries(FILES)) write(file, text);
  const all = [...PACKAGES.dependencies, ...PACKAGES.devDependencies, UNDECLARED];
  for (const name of all) {
    write(`node_modules/${name}/package.json`, JSON.stringify({ name, version: "1.0.0", main: "index.js" }));
    write(`node_modules/${name}/index.js`, "module.exports = {};");
  }
  const versions = (names: string[]) => Object.fromEntries(names.map((n) => [n, "1.0.0"]));
  write(
    "package.json",
    JSON.stringify({
      name: "scratch",
      dependencies: versions(PACKAGES.dependencies),
      devDependencies: versions(PACKAGES.devDependencies),
    }),
  );
  write(
    "tsconfig.json",
    JSON.stringify({ compilerOptions: { module: "esnext", moduleResolution: "bundler", jsx: "react-jsx" } }),
  );
  // Exit code 1 is expected: every probe breaks a rule.
  const { stdout } = await promisify(execFile)(
    DEPCRUISE,
    [
      "--config",
      join(ROOT, ".dependency-cruiser.mjs"),
      "--output-type",
      "json",
      "server",
      "lib",
      "components",
      "plugins",
    ],
    { cwd: dir, maxBuffer: 64 * 1024 * 1024 },
  ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? "" }));
  const violations = outputSchema.parse(JSON.parse(stdout)).summary.violations;
  found = violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`);
}, 60_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("dependency rules", () => {
  it.each([
    "engine-no-infrastructure: server/engine/loop.ts -> node_modules/socket.io/index.js",
    "engine-no-infrastructure: server/engine/loop.ts -> node_modules/openai/index.js",
    "engine-no-infrastructure: server/engine/loop.ts -> node_modules/next/index.js",
    "engine-no-infrastructure: server/engine/loop.ts -> generated/prisma/client.ts",
    "room-server-engine: server/engine/loop.ts -> server/db/table.ts",
    "no-circular: server/engine/loop.ts -> server/engine/ping.ts",
    "engine-only-through-index: server/mcp/gateway.ts -> server/engine/ping.ts",
    "plugins-use-the-sdk: plugins/dice/index.ts -> server/engine/index.ts",
    "client-not-to-server: components/sessions/Valued.tsx -> server/db/table.ts",
    "room-lib: lib/schema.ts -> server/db/table.ts",
    "room-lib: lib/schema.ts -> lib/client/api.ts",
    "room-server-tools: server/tools/steer.ts -> server/engine/index.ts",
    "room-server-llm: server/llm/usage.ts -> server/db/table.ts",
    "room-server-mcp: server/mcp/gateway.ts -> server/db/table.ts",
    "room-server-plugins: server/plugins/host.ts -> server/mcp/gateway.ts",
    "room-server-db: server/db/uses-mcp.ts -> server/mcp/gateway.ts",
    "room-server-realtime: server/realtime/socket.ts -> server/llm/usage.ts",
    "room-server-kernel: server/kernel/clock.ts -> server/engine/index.ts",
    "room-has-a-row: server/newroom/first.ts -> server/kernel/logger.ts",
    // The room table denies a client room type-only imports of the server too (client-not-to-server allows them).
    "room-components-sessions: components/sessions/Typed.tsx -> server/db/table.ts",
    "cli-is-an-entry: server/http/route.ts -> server/cli/main.ts",
    "room-server-http: server/http/route.ts -> server/cli/main.ts",
    "prisma-only-in-db: server/http/route.ts -> generated/prisma/client.ts",
    "no-dev-deps-in-production: server/http/route.ts -> node_modules/vitest/index.js",
    "not-to-unresolvable: server/http/route.ts -> ./missing",
    "no-undeclared-packages: server/http/route.ts -> node_modules/left-pad/index.js",
  ])("reports %s", (violation) => {
    expect(found).toContain(violation);
  });

  it("allows the engine's surface, the kernel, a row's rooms and the plugin SDK", () => {
    const allowed = [
      "server/mcp/gateway.ts -> server/engine/index.ts",
      "server/engine/timed.ts -> server/kernel/logger.ts",
      "plugins/dice/index.ts -> server/plugins/sdk/index.ts",
      "server/db/table.ts -> generated/prisma/client.ts",
      "server/engine/loop.ts -> server/tools/registry.ts",
      "server/engine/loop.ts -> server/llm/usage.ts",
    ];
    for (const pair of allowed) expect(found.filter((v) => v.includes(`: ${pair}`))).toEqual([]);
  });

  it("lets client code import server types (client-not-to-server; the room table decides apart)", () => {
    for (const file of ["components/sessions/Typed.tsx", "components/sessions/Inline.tsx"]) {
      expect(found.filter((v) => v.startsWith(`client-not-to-server: ${file} ->`))).toEqual([]);
    }
  });
});
