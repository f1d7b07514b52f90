// Checks the tools a server lists, one by one, so that one bad tool never costs the others: a tool
// whose name or inputSchema is unusable is skipped; a bad optional field (outputSchema, icons,
// annotations...) is dropped and the tool kept. Every decision comes back as text for the log and
// for operators.
import { ToolSchema, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { Ajv } from "ajv";
import { nestsDeeperThan, TOO_DEEP } from "../../lib/json/depth";
import { withoutSchemaKeyword } from "./mapping";

export interface SkippedTool {
  name: string;
  reason: string;
}

export interface ValidatedTools {
  tools: Tool[];
  skipped: SkippedTool[];
  /** Tools kept with a field dropped. */
  warnings: string[];
}

/** Names an OpenAI-compatible model accepts as a function name. */
const FUNCTION_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** Fields a tool can lose and still be offered. */
const DROPPABLE = new Set(["title", "description", "outputSchema", "icons", "annotations", "execution", "_meta"]);

// Same leniency as the registry's argument validator (unknown keywords and formats are fine); the
// meta-schema check stays on, so a schema Ajv cannot use is caught here and not at call time.
const ajv = new Ajv({ strict: false, validateFormats: false, addUsedSchema: false });

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function compileProblem(schema: Record<string, unknown>): string | null {
  try {
    ajv.compile(withoutSchemaKeyword(schema));
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

function describeIssues(issues: { path: PropertyKey[]; message: string }[]): string {
  return issues
    .slice(0, 3)
    .map((issue) => `${issue.path.map(String).join(".") || "(tool)"}: ${issue.message}`)
    .join("; ");
}

function validateOne(raw: unknown, index: number, warnings: string[]): Tool | SkippedTool {
  const name = isRecord(raw) && typeof raw.name === "string" && raw.name ? raw.name : null;
  if (!isRecord(raw) || !name) return { name: `#${index}`, reason: "tool without a name" };
  if (!FUNCTION_NAME.test(name)) {
    return { name, reason: "name unusable as a function name (letters, digits, _ and - only, at most 64)" };
  }
  // Before the schema checks and Ajv's compile, which recurse (and the definition is sent to the model).
  if (nestsDeeperThan(raw)) return { name, reason: `definition ${TOO_DEEP}` };
  const candidate: Record<string, unknown> = { ...raw };
  let parsed = ToolSchema.safeParse(candidate);
  if (!parsed.success) {
    const fields = new Set(parsed.error.issues.map((issue) => String(issue.path[0] ?? "")));
    const fatal = [...fields].filter((field) => !DROPPABLE.has(field));
    if (fatal.length) return { name, reason: `invalid ${fatal.join(", ")}: ${describeIssues(parsed.error.issues)}` };
    for (const field of fields) delete candidate[field];
    warnings.push(`tool "${name}": invalid ${[...fields].join(", ")} dropped (${describeIssues(parsed.error.issues)})`);
    parsed = ToolSchema.safeParse(candidate);
    if (!parsed.success) return { name, reason: describeIssues(parsed.error.issues) };
  }
  const tool = parsed.data;
  const inputProblem = compileProblem(tool.inputSchema);
  if (inputProblem) return { name, reason: `inputSchema is not a usable JSON Schema: ${inputProblem}` };
  if (tool.outputSchema) {
    const outputProblem = compileProblem(tool.outputSchema);
    if (outputProblem) {
      warnings.push(`tool "${name}": outputSchema is not a usable JSON Schema, dropped (${outputProblem})`);
      delete tool.outputSchema;
    }
  }
  if (tool.execution?.taskSupport === "required") {
    return { name, reason: "needs task-based execution, which this client does not use" };
  }
  return tool;
}

export function validateTools(raw: readonly unknown[]): ValidatedTools {
  const tools: Tool[] = [];
  const skipped: SkippedTool[] = [];
  const warnings: string[] = [];
  raw.forEach((item, index) => {
    const result = validateOne(item, index, warnings);
    if ("reason" in result) skipped.push(result);
    else tools.push(result);
  });
  return { tools, skipped, warnings };
}
