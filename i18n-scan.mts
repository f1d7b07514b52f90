import ts from "typescript";
import fs from "node:fs";
import path from "node:path";
const files = process.argv.slice(2);
const attrs = new Set(["title", "aria-label", "placeholder", "label", "alt"]);
let n = 0;
for (const f of files) {
  const src = ts.createSourceFile(f, fs.readFileSync(f, "utf8"), ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const visit = (node: ts.Node) => {
    let text: string | null = null;
    if (ts.isJsxText(node)) text = node.text.trim();
    else if (ts.isJsxAttribute(node) && attrs.has(node.name.getText()) && node.initializer && ts.isStringLiteral(node.initializer)) text = node.initializer.text;
    if (text && /[A-Za-z]{2,}/.test(text)) { n++; const { line } = src.getLineAndCharacterOfPosition(node.getStart()); console.log(`${f}:${line + 1}: ${text.slice(0, 70)}`); }
    ts.forEachChild(node, visit);
  };
  visit(src);
}
console.error("total", n);
