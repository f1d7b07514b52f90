// Tool arguments checked against the spec's JSON Schema before any provider runs (docs/engine-rules.md#tool-registry).
// Failures are phrased per field so the model can read them and correct its call.
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { nestsDeeperThan, TOO_DEEP } from "../../lib/json/depth";
import type { JsonObject } from "../../lib/tools/schemas";

/** One failing field: its path in the arguments ("" for the arguments themselves) and what is wrong. */
export interface ArgumentProblem {
  path: string;
  message: string;
}

export type ValidationOutcome =
  { ok: true; args: JsonObject } | { ok: false; problems: string[]; fields: ArgumentProblem[] };

/** A schema's compiled validator, or why it could not be compiled. */
type Compiled = { validate: ValidateFunction } | { validate: null; error: string };

const MAX_CACHED_SCHEMAS = 1000;

function fieldPath(instancePath: string, child?: string): string {
  const segments = instancePath
    .split("/")
    .slice(1)
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
  if (child !== undefined) segments.push(child);
  return segments.reduce((path, seg) => (/^\d+$/.test(seg) ? `${path}[${seg}]` : path ? `${path}.${seg}` : seg), "");
}

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

function describeError(error: ErrorObject): ArgumentProblem {
  const params: Record<string, unknown> = error.params;
  switch (error.keyword) {
    case "required":
      return { path: fieldPath(error.instancePath, String(params.missingProperty)), message: "is required" };
    case "additionalProperties":
      return {
        path: fieldPath(error.instancePath, String(params.additionalProperty)),
        message: "is not an accepted parameter",
      };
    case "enum": {
      const allowed = Array.isArray(params.allowedValues) ? params.allowedValues : [];
      return {
        path: fieldPath(error.instancePath),
        message: `must be one of ${allowed.map((v) => JSON.stringify(v)).join(", ")}`,
      };
    }
    case "type":
      return {
        path: fieldPath(error.instancePath),
        message: `must be ${String(params.type)} (got ${describeValue(error.data)})`,
      };
    default:
      return { path: fieldPath(error.instancePath), message: error.message ?? "is invalid" };
  }
}

/**
 * Compiled validators, kept per schema object and per schema text. One cache serves every registry in
 * the process: each session has its own registry, and compiling the same builtin schemas again for
 * every new session cost 6-12 ms of CPU per session (bench: session_memory).
 */
class SchemaCache {
  // strict:false and validateFormats:false: third-party (MCP, plugin) schemas use keywords and formats
  // we do not know; they must not make a tool unusable. addUsedSchema:false: schemas sharing an $id
  // must not collide inside the shared instance.
  private readonly ajv = new Ajv({
    allErrors: true,
    useDefaults: true,
    verbose: true,
    strict: false,
    validateFormats: false,
    addUsedSchema: false,
  });
  private readonly byObject = new WeakMap<object, Compiled>();
  private readonly byJson = new Map<string, Compiled>();

  compiled(schema: JsonObject): Compiled {
    const cached = this.byObject.get(schema);
    if (cached !== undefined) return cached;
    const key = JSON.stringify(schema);
    let compiled = this.byJson.get(key);
    if (compiled === undefined) {
      compiled = this.compile(schema);
      if (this.byJson.size >= MAX_CACHED_SCHEMAS) {
        const oldest = this.byJson.keys().next();
        if (!oldest.done) this.byJson.delete(oldest.value);
      }
      this.byJson.set(key, compiled);
    }
    this.byObject.set(schema, compiled);
    return compiled;
  }

  private compile(schema: JsonObject): Compiled {
    // A `$schema` naming another draft would make Ajv refuse the whole schema.
    const { $schema: _ignored, ...rest } = schema;
    try {
      return { validate: this.ajv.compile(rest) };
    } catch (error) {
      return { validate: null, error: error instanceof Error ? error.message : String(error) };
    }
  }
}

const sharedSchemas = new SchemaCache();

export class ArgumentValidator {
  /** Uncompilable schemas this validator has already reported. */
  private readonly reported = new WeakSet<Compiled>();

  constructor(private readonly onSchemaError: (message: string) => void = () => {}) {}

  /** Validates a copy of `args`, with schema defaults applied to it. */
  validate(toolName: string, schema: JsonObject | undefined, args: JsonObject): ValidationOutcome {
    // Before the copy and Ajv, which both recurse: 10,000 levels overflowed the stack (a 500).
    if (nestsDeeperThan(args))
      return { ok: false, problems: [`arguments: ${TOO_DEEP}`], fields: [{ path: "", message: TOO_DEEP }] };
    const copy = structuredClone(args);
    if (!schema) return { ok: true, args: copy };
    const compiled = sharedSchemas.compiled(schema);
    if (!compiled.validate) {
      if (!this.reported.has(compiled)) {
        this.reported.add(compiled);
        this.onSchemaError(
          `Tool "${toolName}" has a parameters schema that cannot be compiled; its arguments are not validated: ${compiled.error}`,
        );
      }
      return { ok: true, args: copy };
    }
    if (compiled.validate(copy)) return { ok: true, args: copy };
    const fields = (compiled.validate.errors ?? []).map(describeError);
    const problems = [...new Set(fields.map((f) => `${f.path || "arguments"}: ${f.message}`))];
    return { ok: false, problems, fields };
  }
}
