// A JSON Schema (tool parameters) flattened into rows a person can scan: name, type, required,
// description and constraints, nested properties indented. Unknown keywords are not lost: the raw
// schema stays one click away in the view.

type Json = Record<string, unknown>;

export interface SchemaRow {
  path: string;
  name: string;
  depth: number;
  type: string;
  required: boolean;
  description: string;
  constraints: string[];
}

const MAX_DEPTH = 5;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

function describeType(schema: unknown): string {
  if (!isObject(schema)) return "any";
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(" | ");
  if ("const" in schema) return JSON.stringify(schema.const);
  for (const key of ["oneOf", "anyOf"] as const) {
    const alts = schema[key];
    if (Array.isArray(alts)) return alts.map(describeType).join(" | ");
  }
  const type = schema.type;
  if (Array.isArray(type)) return type.join(" | ");
  if (type === "array") return `${describeType(schema.items)}[]`;
  if (typeof type === "string") return type;
  if (isObject(schema.properties)) return "object";
  return "any";
}

function constraintsOf(schema: Json): string[] {
  const out: string[] = [];
  const show = (label: string, key: string) => {
    if (schema[key] !== undefined) out.push(`${label} ${JSON.stringify(schema[key])}`);
  };
  show("default", "default");
  show("min", "minimum");
  show("max", "maximum");
  show("min length", "minLength");
  show("max length", "maxLength");
  show("min items", "minItems");
  show("max items", "maxItems");
  show("pattern", "pattern");
  show("format", "format");
  if (Array.isArray(schema.examples) && schema.examples.length) out.push(`e.g. ${JSON.stringify(schema.examples[0])}`);
  return out;
}

export function outlineSchema(schema: unknown): SchemaRow[] {
  const rows: SchemaRow[] = [];
  walk(schema, "", 0, rows);
  return rows;
}

function walk(schema: unknown, prefix: string, depth: number, rows: SchemaRow[]): void {
  if (!isObject(schema) || depth >= MAX_DEPTH) return;
  const target = schema.type === "array" && isObject(schema.items) ? schema.items : schema;
  const props = isObject(target.properties) ? target.properties : null;
  if (!props) return;
  const required = new Set(
    Array.isArray(target.required) ? target.required.filter((r): r is string => typeof r === "string") : [],
  );
  for (const [name, child] of Object.entries(props)) {
    const path = prefix ? `${prefix}.${name}` : name;
    const c = isObject(child) ? child : {};
    rows.push({
      path,
      name,
      depth,
      type: describeType(child),
      required: required.has(name),
      description: typeof c.description === "string" ? c.description : "",
      constraints: constraintsOf(c),
    });
    walk(child, schema.type === "array" ? `${path}[]` : path, depth + 1, rows);
  }
}
