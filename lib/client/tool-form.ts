// A form generated from a tool's parameters schema (JSON Schema), UI-agnostic: the schema becomes a
// tree of fields (strings, numbers, integers, booleans, enums as choices, nested objects, arrays with
// rows), the values a plain tree the view edits, and the values the tool's arguments and back.
// Checking the arguments is the server's job (the registry's own validator answers 400 per field);
// here only what cannot be sent at all (a number that is not one, JSON that does not parse) is an
// error. Parts of a schema the form cannot render (oneOf, $ref, free-form objects) become raw JSON
// fields; a root it cannot render at all leaves the caller to a raw-JSON editor.

type Json = Record<string, unknown>;

interface FieldBase {
  /** Property name ("" for an array's item). */
  key: string;
  label: string;
  description: string;
  required: boolean;
  /** The schema's default, when it gives one (prefilled). */
  default?: unknown;
}

export type FormField =
  | (FieldBase & { kind: "string"; multiline: boolean; placeholder: string })
  | (FieldBase & { kind: "number" | "integer"; min?: number; max?: number })
  | (FieldBase & { kind: "boolean" })
  | (FieldBase & { kind: "enum"; options: { label: string; value: unknown }[] })
  | (FieldBase & { kind: "object"; fields: FormField[] })
  | (FieldBase & { kind: "array"; item: FormField; minItems?: number; maxItems?: number })
  /** A part the form cannot render: edited as JSON text. */
  | (FieldBase & { kind: "json" });

/**
 * What the view edits: text for strings, numbers, enums (the option's index, "" for none) and JSON
 * fields; true/false/null (not set) for booleans; records for objects; lists for arrays.
 */
export type FieldValue = string | boolean | null | FieldValue[] | { [key: string]: FieldValue };
export type ObjectValue = { [key: string]: FieldValue };

/** A field's place in the arguments, as the server's validator names it: "a.b[0].c". */
export type FieldPath = (string | number)[];

export type ToolForm = { ok: true; fields: FormField[] } | { ok: false; reason: string };

const MAX_DEPTH = 6;
const UNRENDERABLE = ["oneOf", "anyOf", "allOf", "$ref", "not", "if"] as const;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

export function pathKey(path: FieldPath): string {
  return path.reduce<string>(
    (out, seg) => (typeof seg === "number" ? `${out}[${seg}]` : out ? `${out}.${seg}` : seg),
    "",
  );
}

/** The schema's single non-null type ("string" from ["string", "null"]), if it names one. */
function typeOf(schema: Json): string | null {
  const type = schema.type;
  if (typeof type === "string") return type;
  if (Array.isArray(type)) {
    const types = type.filter((t) => t !== "null");
    return types.length === 1 && typeof types[0] === "string" ? types[0] : null;
  }
  if (isObject(schema.properties)) return "object";
  if (Array.isArray(schema.enum)) return "enum";
  return null;
}

function optionLabel(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

function fieldOf(key: string, schema: unknown, required: boolean, depth: number): FormField {
  const s = isObject(schema) ? schema : {};
  const base: FieldBase = {
    key,
    label: typeof s.title === "string" && s.title ? s.title : key,
    description: typeof s.description === "string" ? s.description : "",
    required,
    ...(s.default !== undefined ? { default: s.default } : {}),
  };
  const json = { ...base, kind: "json" as const };
  if (!isObject(schema) || depth > MAX_DEPTH || UNRENDERABLE.some((k) => k in s)) return json;
  if (Array.isArray(s.enum) && s.enum.length) {
    return {
      ...base,
      kind: "enum",
      options: (s.enum as unknown[]).map((value) => ({ label: optionLabel(value), value })),
    };
  }
  if ("const" in s) return { ...base, kind: "enum", options: [{ label: optionLabel(s.const), value: s.const }] };
  const type = typeOf(s);
  const num = (k: string) => (typeof s[k] === "number" ? { [k === "minimum" ? "min" : "max"]: s[k] } : {});
  switch (type) {
    case "string": {
      // A text allowed to be long gets a text area; a plain one a line.
      const multiline = typeof s.maxLength === "number" && s.maxLength > 200;
      const placeholder = typeof s.format === "string" ? s.format : "";
      return { ...base, kind: "string", multiline, placeholder };
    }
    case "number":
    case "integer":
      return { ...base, kind: type, ...num("minimum"), ...num("maximum") };
    case "boolean":
      return { ...base, kind: "boolean" };
    case "object": {
      // A free-form map (only additionalProperties) has no fields to show.
      if (!isObject(s.properties)) return json;
      return { ...base, kind: "object", fields: fieldsOf(s, depth + 1) };
    }
    case "array": {
      if (!isObject(s.items)) return json;
      return {
        ...base,
        kind: "array",
        item: fieldOf("", s.items, true, depth + 1),
        ...(typeof s.minItems === "number" ? { minItems: s.minItems } : {}),
        ...(typeof s.maxItems === "number" ? { maxItems: s.maxItems } : {}),
      };
    }
    default:
      return json;
  }
}

function fieldsOf(schema: Json, depth: number): FormField[] {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === "string") : []);
  return Object.entries(properties).map(([key, sub]) => fieldOf(key, sub, required.has(key), depth));
}

/** The form for a parameters schema; an absent schema takes no arguments (no fields). */
export function buildToolForm(schema: unknown): ToolForm {
  if (schema === undefined || schema === null) return { ok: true, fields: [] };
  if (!isObject(schema)) return { ok: false, reason: "the parameters schema is not an object" };
  const blocked = UNRENDERABLE.find((k) => k in schema);
  if (blocked) return { ok: false, reason: `the parameters schema uses ${blocked}` };
  const type = typeOf(schema);
  if (type !== null && type !== "object") return { ok: false, reason: `the parameters are a ${type}, not an object` };
  return { ok: true, fields: fieldsOf(schema, 0) };
}

/** A field's value for a given argument value (undefined: the default, else empty). */
function valueOf(field: FormField, given: unknown): FieldValue {
  const value = given === undefined ? field.default : given;
  switch (field.kind) {
    case "string":
      return typeof value === "string" ? value : "";
    case "number":
    case "integer":
      return typeof value === "number" ? String(value) : "";
    case "boolean":
      return typeof value === "boolean" ? value : field.required ? false : null;
    case "enum": {
      if (value === undefined) return "";
      const index = field.options.findIndex((o) => JSON.stringify(o.value) === JSON.stringify(value));
      return index < 0 ? "" : String(index);
    }
    case "object":
      return objectValues(field.fields, isObject(value) ? value : {});
    case "array": {
      const items = Array.isArray(value) ? value : [];
      const rows = items.map((item) => valueOf(field.item, item));
      // Rows the schema asks for at least are there to fill.
      while (rows.length < (field.minItems ?? 0)) rows.push(valueOf(field.item, undefined));
      return rows;
    }
    case "json":
      return value === undefined ? "" : JSON.stringify(value, null, 2);
  }
}

function objectValues(fields: FormField[], args: Json): ObjectValue {
  return Object.fromEntries(fields.map((f) => [f.key, valueOf(f, args[f.key])]));
}

/** The form's starting values: the schema's defaults prefilled. */
export function initialValues(fields: FormField[]): ObjectValue {
  return objectValues(fields, {});
}

/** Values showing these arguments (back from the raw-JSON mode); unknown keys are dropped. */
export function valuesFromArguments(fields: FormField[], args: Json): ObjectValue {
  return objectValues(fields, args);
}

export type ArgumentsOutcome =
  | { ok: true; args: Json }
  /** Problems per field path ("a.b[0]"), for fields whose text cannot become a value at all. */
  | { ok: false; errors: Record<string, string> };

const OMIT = Symbol("omit");

/** A required field left empty: said at once, and nothing is sent (an empty text would pass as a value). */
function missing(field: FormField, path: FieldPath, errors: Record<string, string>): typeof OMIT {
  if (field.required) errors[pathKey(path)] = "is required";
  return OMIT;
}

function argOf(field: FormField, value: FieldValue, path: FieldPath, errors: Record<string, string>): unknown {
  switch (field.kind) {
    case "string":
      // An optional empty text is left out.
      return typeof value === "string" && value !== "" ? value : missing(field, path, errors);
    case "number":
    case "integer": {
      const text = typeof value === "string" ? value.trim() : "";
      if (text === "") return missing(field, path, errors);
      const n = Number(text);
      if (!Number.isFinite(n)) errors[pathKey(path)] = "must be a number";
      else if (field.kind === "integer" && !Number.isInteger(n)) errors[pathKey(path)] = "must be an integer";
      return n;
    }
    case "boolean":
      return typeof value === "boolean" ? value : OMIT;
    case "enum": {
      const option = typeof value === "string" && value !== "" ? field.options[Number(value)] : undefined;
      return option ? option.value : missing(field, path, errors);
    }
    case "object": {
      // An optional object left as it started is left out (its own required fields stay unasked).
      if (!field.required && JSON.stringify(value) === JSON.stringify(valueOf(field, undefined))) return OMIT;
      return argsOf(field.fields, isObject(value) ? value : {}, path, errors);
    }
    case "array": {
      const rows = Array.isArray(value) ? value : [];
      if (!rows.length && !field.required) return OMIT;
      return rows.map((row, i) => {
        const item = argOf(field.item, row, [...path, i], errors);
        // An empty row still holds its place: the validator names it.
        return item === OMIT ? null : item;
      });
    }
    case "json": {
      const text = typeof value === "string" ? value.trim() : "";
      if (text === "") return missing(field, path, errors);
      try {
        return JSON.parse(text) as unknown;
      } catch {
        errors[pathKey(path)] = "is not valid JSON";
        return OMIT;
      }
    }
  }
}

function argsOf(fields: FormField[], values: ObjectValue, path: FieldPath, errors: Record<string, string>): Json {
  const out: Json = {};
  for (const field of fields) {
    const arg = argOf(field, values[field.key] ?? null, [...path, field.key], errors);
    if (arg !== OMIT) out[field.key] = arg;
  }
  return out;
}

/** The tool's arguments from the form's values. */
export function toArguments(fields: FormField[], values: ObjectValue): ArgumentsOutcome {
  const errors: Record<string, string> = {};
  const args = argsOf(fields, values, [], errors);
  return Object.keys(errors).length ? { ok: false, errors } : { ok: true, args };
}

/** The raw-JSON mode's text as arguments: an object or an error. */
export function parseRawArguments(text: string): { ok: true; args: Json } | { ok: false; error: string } {
  let parsed: unknown;
  try {
    parsed = text.trim() ? JSON.parse(text) : {};
  } catch (error) {
    return { ok: false, error: `not valid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  return isObject(parsed) ? { ok: true, args: parsed } : { ok: false, error: "the arguments must be a JSON object" };
}

/** The value at `path` inside the form's values. */
export function valueAt(values: FieldValue, path: FieldPath): FieldValue | undefined {
  let current: FieldValue | undefined = values;
  for (const seg of path) {
    if (typeof seg === "number") current = Array.isArray(current) ? current[seg] : undefined;
    else current = isObject(current) ? current[seg] : undefined;
    if (current === undefined) return undefined;
  }
  return current;
}

/** A copy of `values` with `path` set to `next`. */
export function setValueAt<V extends FieldValue>(values: V, path: FieldPath, next: FieldValue): V {
  if (!path.length) return next as V;
  const [head, ...rest] = path;
  if (typeof head === "number") {
    const list = Array.isArray(values) ? [...values] : [];
    list[head] = setValueAt(list[head] ?? null, rest, next);
    return list as V;
  }
  const record: ObjectValue = isObject(values) ? { ...values } : {};
  record[head] = setValueAt(record[head] ?? null, rest, next);
  return record as V;
}

/** A new empty row appended to the array at `path`. */
export function addRow<V extends FieldValue>(values: V, path: FieldPath, field: FormField & { kind: "array" }): V {
  const rows = valueAt(values, path);
  const list = Array.isArray(rows) ? rows : [];
  return setValueAt(values, path, [...list, valueOf(field.item, undefined)]);
}

/** The array at `path` without its row `index`. */
export function removeRow<V extends FieldValue>(values: V, path: FieldPath, index: number): V {
  const rows = valueAt(values, path);
  const list = Array.isArray(rows) ? rows.filter((_, i) => i !== index) : [];
  return setValueAt(values, path, list);
}

/**
 * The server's 400 fields ("arguments.a.b[0]: is required") by form path ("a.b[0]"); problems about
 * the arguments as a whole are under "".
 */
export function serverFieldErrors(fields: { path: string; message: string }[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of fields) {
    const key = f.path === "arguments" ? "" : f.path.startsWith("arguments.") ? f.path.slice("arguments.".length) : "";
    out[key] = out[key] ? `${out[key]}; ${f.message}` : f.message;
  }
  return out;
}
