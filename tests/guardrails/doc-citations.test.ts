// What the code cites is in the repository and still there: no comment or doc points at a spec outside
// it (the design notes the project began from; their rules now live in docs/), every
// `docs/<name>.md#anchor` names a section that exists, and every source path a comment or doc names is a
// file of the tree. A file moved or an anchor renamed without its citations fails here with the place.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

/** Where citations live; the guard-rail tests are left out, their fixtures name files that never exist. */
const CITING = ["server", "lib", "components", "app", "tests", "e2e", "bench", "scripts", "docs", "README.md"];
const EXCLUDED = ["tests/guardrails/"];

function citingFiles(): string[] {
  const listed = execFileSync("git", ["ls-files", "--", ...CITING], { encoding: "utf8" }).split("\n");
  return listed.filter((f) => /\.(ts|tsx|mjs|cjs|md)$/.test(f) && !EXCLUDED.some((e) => f.startsWith(e)));
}

/** Each cited place with its file and line, for a failure that says where. */
function occurrences(pattern: RegExp): { at: string; match: RegExpExecArray }[] {
  const out: { at: string; match: RegExpExecArray }[] = [];
  for (const file of citingFiles()) {
    readFileSync(file, "utf8")
      .split("\n")
      .forEach((line, i) => {
        for (const match of line.matchAll(pattern)) out.push({ at: `${file}:${i + 1}`, match });
      });
  }
  return out;
}

/** A markdown file's anchors: explicit `<a id>`s and the ones GitHub derives from headings. */
function anchorsOf(doc: string): Set<string> {
  const text = readFileSync(doc, "utf8");
  const anchors = new Set([...text.matchAll(/<a id="([^"]+)"><\/a>/g)].map((m) => m[1]));
  for (const [, heading] of text.matchAll(/^#+ (.+)$/gm)) {
    anchors.add(
      heading
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\- _]/gu, "")
        .replace(/ /g, "-"),
    );
  }
  return anchors;
}

describe("citations", () => {
  it("never point outside the repository", () => {
    const outside = occurrences(
      /\.\.\/shared\/|\bengine\.md\b|\barchitecture\.md\b|reference-python|(?<![\w/[])(?<!\]\()interface\.md/g,
    );
    expect(outside.map((o) => `${o.at}: ${o.match[0]}`)).toEqual([]);
  });

  it("name anchors that exist", () => {
    const anchors = new Map<string, Set<string>>();
    const missing: string[] = [];
    // `docs/x.md#a`, and the anchors that follow it in one citation: `#a, #b`, `#a and #b`, `#a to #b`.
    for (const { at, match } of occurrences(/(docs\/[a-z-]+\.md)((?:#[a-z0-9-]+(?:,? (?:and |to )?(?=#))?)+)/g)) {
      const doc = match[1];
      if (!existsSync(doc)) {
        missing.push(`${at}: ${doc}`);
        continue;
      }
      if (!anchors.has(doc)) anchors.set(doc, anchorsOf(doc));
      for (const [, anchor] of match[2].matchAll(/#([a-z0-9-]+)/g)) {
        if (!anchors.get(doc)?.has(anchor)) missing.push(`${at}: ${doc}#${anchor}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("name source files that exist", () => {
    const stale = occurrences(/(?<![\w./-])(?:server|lib|components|app|bench|scripts|e2e)\/[\w./-]+\.tsx?\b/g)
      .filter(({ match }) => !existsSync(match[0]))
      .map(({ at, match }) => `${at}: ${match[0]}`);
    expect(stale).toEqual([]);
  });
});
