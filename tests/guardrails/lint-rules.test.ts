// The project's ESLint config catches what it is there for: probe files in a scratch tree (its own
// tsconfig, the project's node_modules) are linted with eslint.config.js through ESLint's API.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { ESLint, type Linter } from "eslint";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");

const PROBES: Record<string, string> = {
  "server/promises.ts": [
    "async function work(): Promise<number> {",
    "  return 1;",
    "}",
    "export function dropped(): void {",
    "  work();", // line 5: no-floating-promises
    "}",
    "export function intended(): void {",
    "  void work();",
    "}",
    "export function asListener(list: number[]): void {",
    "  list.forEach(async () => {", // line 11: no-misused-promises
    "    await work();",
    "  });",
    "}",
  ].join("\n"),
  "server/any.ts": [
    "export const bare = (x: any): unknown => x;", // line 1: no-explicit-any
    "// eslint-disable-next-line @typescript-eslint/no-explicit-any",
    "export const unexplained = (x: any): unknown => x;", // line 2's comment: require-description
    "// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the callback's type is untyped upstream",
    "export const explained = (x: any): unknown => x;",
    "// eslint-disable-next-line @typescript-eslint/no-explicit-any -- nothing to disable here",
    "export const clean = (x: unknown): unknown => x;", // line 6's comment: unused directive
  ].join("\n"),
  "components/Hooks.tsx": [
    '"use client";',
    'import { useState } from "react";',
    "export function Counter({ on }: { on: boolean }) {",
    "  if (on) {",
    "    const [n] = useState(1);", // line 5: rules-of-hooks
    "    return n;",
    "  }",
    "  return 0;",
    "}",
  ].join("\n"),
};

let dir = "";
let found: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "maisaka-lintrules-"));
  for (const [file, text] of Object.entries(PROBES)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text + "\n");
  }
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: { strict: true, module: "esnext", moduleResolution: "bundler", jsx: "react-jsx", noEmit: true },
      include: ["**/*.ts", "**/*.tsx"],
    }),
  );
  const config = ((await import(pathToFileURL(join(ROOT, "eslint.config.js")).href)) as { default: Linter.Config[] })
    .default;
  // The project's config, with the type information of the scratch tree.
  const eslint = new ESLint({
    cwd: dir,
    overrideConfigFile: true,
    overrideConfig: [...config, { languageOptions: { parserOptions: { tsconfigRootDir: dir } } }],
  });
  const results = await eslint.lintFiles(Object.keys(PROBES));
  found = results.flatMap((r) =>
    r.messages.map((m) => `${r.filePath.slice(dir.length + 1)}:${m.line} ${m.ruleId ?? m.message.split(" (")[0]}`),
  );
}, 120_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("lint rules", () => {
  it("reports exactly the broken rules", () => {
    expect(found.sort()).toEqual(
      [
        "components/Hooks.tsx:5 react-hooks/rules-of-hooks",
        "server/any.ts:1 @typescript-eslint/no-explicit-any",
        "server/any.ts:2 @eslint-community/eslint-comments/require-description",
        "server/any.ts:6 Unused eslint-disable directive",
        "server/promises.ts:11 @typescript-eslint/no-misused-promises",
        "server/promises.ts:5 @typescript-eslint/no-floating-promises",
      ].sort(),
    );
  });
});
