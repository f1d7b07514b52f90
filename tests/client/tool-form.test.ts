// The form generated from a tool's parameters schema: schema -> fields -> values -> arguments and
// back, with nested objects, arrays of rows, enums, defaults, and raw JSON for what it cannot render.
import { describe, expect, it } from "vitest";
import {
  addRow,
  buildToolForm,
  initialValues,
  parseRawArguments,
  removeRow,
  serverFieldErrors,
  setValueAt,
  toArguments,
  valueAt,
  valuesFromArguments,
  type FormField,
} from "../../lib/client/tool-form";

const schema = {
  type: "object",
  properties: {
    query: { type: "string", description: "what to look for" },
    limit: { type: "integer", minimum: 1, default: 5 },
    exact: { type: "boolean", default: true },
    verbose: { type: "boolean" },
    mode: { type: "string", enum: ["fast", "deep"], default: "fast" },
    filter: {
      type: "object",
      title: "Filter",
      properties: { person: { type: "string" }, since: { type: ["number", "null"] } },
      required: ["person"],
    },
    tags: { type: "array", items: { type: "string" } },
    entities: {
      type: "array",
      minItems: 1,
      items: {
        type: "object",
        properties: { name: { type: "string" }, weight: { type: "number" } },
        required: ["name"],
      },
    },
    extra: { oneOf: [{ type: "string" }, { type: "number" }] },
  },
  required: ["query", "entities"],
};

function fields(s: unknown = schema): FormField[] {
  const form = buildToolForm(s);
  if (!form.ok) throw new Error(form.reason);
  return form.fields;
}

describe("buildToolForm", () => {
  it("turns each property into a field of its kind, with required marks, titles and nesting", () => {
    const f = fields();
    expect(f.map((x) => [x.key, x.kind, x.required])).toEqual([
      ["query", "string", true],
      ["limit", "integer", false],
      ["exact", "boolean", false],
      ["verbose", "boolean", false],
      ["mode", "enum", false],
      ["filter", "object", false],
      ["tags", "array", false],
      ["entities", "array", true],
      ["extra", "json", false],
    ]);
    const filter = f[5];
    if (filter.kind !== "object") throw new Error("filter is an object");
    expect(filter.label).toBe("Filter");
    expect(filter.fields.map((x) => [x.key, x.kind, x.required])).toEqual([
      ["person", "string", true],
      ["since", "number", false],
    ]);
    const mode = f[4];
    expect(mode.kind === "enum" && mode.options.map((o) => o.label)).toEqual(["fast", "deep"]);
    expect(f[0].description).toBe("what to look for");
    expect(f[0].kind === "string" && f[0].multiline).toBe(false);
    expect(fields({ type: "object", properties: { t: { type: "string", maxLength: 4000 } } })[0]).toMatchObject({
      multiline: true,
    });
  });

  it("leaves roots it cannot render to the raw-JSON mode, and takes an absent schema as no arguments", () => {
    expect(buildToolForm({ anyOf: [{ type: "object" }] })).toMatchObject({ ok: false });
    expect(buildToolForm({ type: "array" })).toMatchObject({ ok: false });
    expect(buildToolForm(undefined)).toEqual({ ok: true, fields: [] });
    // A free-form map has no fields: JSON text.
    expect(fields({ type: "object", properties: { m: { type: "object", additionalProperties: true } } })[0].kind).toBe(
      "json",
    );
  });
});

describe("values and arguments", () => {
  it("prefills defaults, and an untouched form sends only the defaults and the required fields", () => {
    const f = fields();
    const values = initialValues(f);
    expect(values).toMatchObject({ limit: "5", exact: true, verbose: null, mode: "0", tags: [] });
    // minItems 1: one row to fill.
    expect(values.entities).toEqual([{ name: "", weight: "" }]);
    const filled = setValueAt(setValueAt(values, ["query"], "tea"), ["entities", 0, "name"], "x");
    expect(toArguments(f, filled)).toEqual({
      ok: true,
      args: { query: "tea", limit: 5, exact: true, mode: "fast", entities: [{ name: "x" }] },
    });
  });

  it("sends nothing while a required field is empty: an empty text would pass as a value", () => {
    const f = fields();
    expect(toArguments(f, initialValues(f))).toEqual({
      ok: false,
      errors: { query: "is required", "entities[0].name": "is required" },
    });
    // Required numbers, choices and JSON alike; optional ones are left out.
    const required = fields({
      type: "object",
      properties: {
        n: { type: "number" },
        pick: { enum: ["a", "b"] },
        raw: { oneOf: [{ type: "string" }] },
        note: { type: "string" },
      },
      required: ["n", "pick", "raw"],
    });
    expect(toArguments(required, initialValues(required))).toEqual({
      ok: false,
      errors: { n: "is required", pick: "is required", raw: "is required" },
    });
  });

  it("round-trips arguments with nested objects, arrays of objects, enums and JSON fields", () => {
    const f = fields();
    const args = {
      query: "tea",
      limit: 3,
      exact: false,
      verbose: true,
      mode: "deep",
      filter: { person: "Ada", since: 1700000000 },
      tags: ["a", "b"],
      entities: [{ name: "x", weight: 0.5 }, { name: "y" }],
      extra: 42,
    };
    const values = valuesFromArguments(f, args);
    expect(values.mode).toBe("1");
    expect(toArguments(f, values)).toEqual({ ok: true, args });
  });

  it("adds and removes array rows and edits nested values by path", () => {
    const f = fields();
    const entities = f.find((x) => x.key === "entities");
    if (entities?.kind !== "array") throw new Error("entities is an array");
    let values = setValueAt(initialValues(f), ["query"], "tea");
    values = addRow(values, ["entities"], entities);
    values = setValueAt(values, ["entities", 1, "name"], "second");
    values = setValueAt(values, ["entities", 0, "name"], "first");
    expect(valueAt(values, ["entities", 1, "name"])).toBe("second");
    values = removeRow(values, ["entities"], 0);
    const out = toArguments(f, values);
    expect(out.ok && out.args.entities).toEqual([{ name: "second" }]);
    // The original values are untouched (the view keeps history).
    expect(initialValues(f).entities).toHaveLength(1);
  });

  it("names the fields whose text cannot be sent: numbers, integers and JSON", () => {
    const f = fields();
    let values = setValueAt(setValueAt(initialValues(f), ["query"], "tea"), ["entities", 0, "name"], "x");
    values = setValueAt(values, ["limit"], "2.5");
    values = setValueAt(values, ["entities", 0, "weight"], "heavy");
    values = setValueAt(values, ["extra"], "{oops");
    expect(toArguments(f, values)).toEqual({
      ok: false,
      errors: { limit: "must be an integer", "entities[0].weight": "must be a number", extra: "is not valid JSON" },
    });
  });

  it("leaves out an optional object whose fields are all empty", () => {
    const f = fields();
    const ready = setValueAt(setValueAt(initialValues(f), ["query"], "tea"), ["entities", 0, "name"], "x");
    const values = setValueAt(ready, ["filter", "since"], "");
    const out = toArguments(f, values);
    expect(out.ok && "filter" in out.args).toBe(false);
    const filled = setValueAt(values, ["filter", "person"], "Ada");
    const again = toArguments(f, filled);
    expect(again.ok && again.args.filter).toEqual({ person: "Ada" });
  });
});

describe("raw JSON and server errors", () => {
  it("parses the raw-JSON mode's text as an object only", () => {
    expect(parseRawArguments('{"a": [1]}')).toEqual({ ok: true, args: { a: [1] } });
    expect(parseRawArguments("")).toEqual({ ok: true, args: {} });
    expect(parseRawArguments("[1]")).toMatchObject({ ok: false, error: "the arguments must be a JSON object" });
    expect(parseRawArguments("{")).toMatchObject({ ok: false });
  });

  it("maps the server's 400 fields onto form paths", () => {
    expect(
      serverFieldErrors([
        { path: "arguments.entities[0].name", message: "is required" },
        { path: "arguments.limit", message: "must be integer (got string)" },
        { path: "arguments", message: "must be object" },
        { path: "arguments.limit", message: "must be >= 1" },
      ]),
    ).toEqual({
      "entities[0].name": "is required",
      limit: "must be integer (got string); must be >= 1",
      "": "must be object",
    });
  });
});
