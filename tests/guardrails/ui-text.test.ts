// Every text the dashboard shows comes from the catalog (lib/i18n), so each page reads wholly in the
// operator's language: a literal English text in a page's markup (a JSX text, or a title, aria-label,
// placeholder, label or alt given as a string) fails here with its place.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ATTRIBUTES = new Set(["title", "aria-label", "placeholder", "label", "alt"]);

/** The same in every language: names, key caps, protocol words, literal values shown as code. */
const LANGUAGE_FREE = new Set([
  "Maisaka",
  "SIMULATED",
  "@bot",
  "Space",
  "Shift",
  "Language / 语言",
  "JSON",
  "(JSON)",
  "true",
  "false",
  "stdio",
  "streamable_http",
  "sse",
  "ws //",
  // /settings labels its fields with their config keys.
  "chat",
]);

/** A config key, path or file name (dots, slashes, underscores, no sentence). */
const codeLike = (text: string) => /[./_]/.test(text) && !/[A-Za-z]{2,} +[A-Za-z]{2,}/.test(text.replace(/[[\]]/g, ""));

function literalTexts(file: string, code = readFileSync(file, "utf8")): { line: number; text: string }[] {
  const source = ts.createSourceFile(file, code, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const found: { line: number; text: string }[] = [];
  const visit = (node: ts.Node) => {
    let text: string | null = null;
    if (ts.isJsxText(node)) text = node.text.trim();
    else if (
      ts.isJsxAttribute(node) &&
      ATTRIBUTES.has(node.name.getText()) &&
      node.initializer &&
      ts.isStringLiteral(node.initializer)
    )
      text = node.initializer.text;
    if (text && /[A-Za-z]{2,}/.test(text) && !LANGUAGE_FREE.has(text) && !codeLike(text))
      found.push({ line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, text });
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("dashboard texts", () => {
  it("are all from the catalog: no literal English in a page's markup", () => {
    const files = execFileSync("git", ["ls-files", "components/**/*.tsx", "app/**/*.tsx"], { encoding: "utf8" })
      .split("\n")
      .filter(Boolean);
    expect(files.length).toBeGreaterThan(50);
    const literals = files.flatMap((f) => literalTexts(f).map((l) => `${f}:${l.line}: ${l.text}`));
    expect(literals).toEqual([]);
  });

  it("finds a literal text where there is one", () => {
    const probe = `export const Probe = ({ t }: { t: (key: string) => string }) => (
      <div title="Save the form">
        Not translated
        <span>{t("probe.key")}</span>
        <code>platforms.onebot.reverse.enabled</code>
        <kbd>Space</kbd>
      </div>
    );`;
    expect(literalTexts("probe.tsx", probe).map((l) => l.text)).toEqual(["Save the form", "Not translated"]);
  });
});
