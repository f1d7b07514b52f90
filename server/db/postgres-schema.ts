// The Postgres schema, derived from the one source of truth (prisma/schema.prisma, the SQLite schema) and
// written to prisma/postgres/schema.prisma, with its own client output (generated/prisma-pg). A test fails
// when the committed file is stale; `npm run db:generate` rewrites it.
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const sqliteSchemaPath = path.join(projectRoot, "prisma", "schema.prisma");
export const postgresSchemaPath = path.join(projectRoot, "prisma", "postgres", "schema.prisma");

const header = `// GENERATED from prisma/schema.prisma by server/db/postgres-schema.ts: edit that file, then run
// \`npm run db:generate\`. Differences: provider postgresql, client output generated/prisma-pg, the
// ledger's event data as \`json\` (the text as written: key order kept, \\u0000 accepted) rather than jsonb,
// a \`rowid\` column where the stores order by SQLite's implicit rowid, and a trigram index for Memory search.
`;

/** Tables the stores read in insertion order (\`ORDER BY rowid\`, server/db/stores): SQLite has it built in. */
const insertionOrdered = ["ToolToggle", "Jargon", "Person", "Emoji"];

/** The Postgres variant of the SQLite schema text. Throws when the text no longer has what it rewrites. */
export function derivePostgresSchema(sqlite: string): string {
  const rewrites: [RegExp, string][] = [
    [/^(\s*provider\s*=\s*)"sqlite"/m, '$1"postgresql"'],
    [/^(\s*output\s*=\s*)"\.\.\/generated\/prisma"/m, '$1"../../generated/prisma-pg"'],
    [
      /^(\s*)\/\/ Rust-free client: queries run through the driver adapter \(better-sqlite3\)\./m,
      "$1// Rust-free client: queries run through the driver adapter (pg).",
    ],
  ];
  let text = sqlite;
  for (const [pattern, replacement] of rewrites) {
    if (!pattern.test(text))
      throw new Error(`schema.prisma: expected to find ${pattern} to derive the Postgres schema`);
    text = text.replace(pattern, replacement);
  }
  text = rewriteModelField(text, "MonitorEvent", "data", (line) =>
    line.replace(/\bJson\b(?!.*@db\.)/, "Json @db.Json"),
  );
  for (const model of insertionOrdered)
    text = addToModel(
      text,
      model,
      "  /// Insertion order: SQLite's implicit rowid, made a column.\n  rowid BigInt @unique @default(autoincrement())",
    );
  // Memory search runs ILIKE per term (server/db/stores/memories.ts); SQLite has its FTS5 table instead.
  text = addToModel(text, "Memory", '  @@index([content(ops: raw("gin_trgm_ops"))], type: Gin)');
  return header + text;
}

/**
 * `lines` appended to a model's block, before its closing brace; a schema without that model is left as it
 * is (the stores' Postgres suites fail on a missing column or index, not this derivation).
 */
function addToModel(text: string, model: string, lines: string): string {
  const block = new RegExp(`^model ${model} \\{[\\s\\S]*?^\\}`, "m").exec(text);
  if (!block) return text;
  const end = block.index + block[0].length - 1;
  return `${text.slice(0, end)}\n${lines}\n${text.slice(end)}`;
}

function rewriteModelField(text: string, model: string, field: string, edit: (line: string) => string): string {
  const block = new RegExp(`^model ${model} \\{[\\s\\S]*?^\\}`, "m").exec(text);
  const line = block && new RegExp(`^\\s*${field}\\s+\\S.*$`, "m").exec(block[0]);
  if (!block || !line) throw new Error(`schema.prisma: no field ${model}.${field} to derive the Postgres schema`);
  const start = block.index + line.index;
  return text.slice(0, start) + edit(line[0]) + text.slice(start + line[0].length);
}

/** The Postgres schema as it should be now. */
export async function expectedPostgresSchema(): Promise<string> {
  return derivePostgresSchema(await readFile(sqliteSchemaPath, "utf8"));
}

/** Rewrites prisma/postgres/schema.prisma; true when it changed. */
export async function writePostgresSchema(): Promise<boolean> {
  const expected = await expectedPostgresSchema();
  const current = await readFile(postgresSchemaPath, "utf8").catch(() => "");
  if (current === expected) return false;
  await writeFile(postgresSchemaPath, expected);
  return true;
}
