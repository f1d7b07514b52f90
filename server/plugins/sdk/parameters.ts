// Tool parameters as plugin authors write them (a JSON Schema or a short list) and legacy action
// parameters, all turned into the JSON object schema the model and the argument validator read.
import type { JsonObject } from "../../../lib/tools/schemas";

export type ToolParameterType = "string" | "number" | "integer" | "boolean" | "array" | "object";

export interface ToolParameter {
  name: string;
  type: ToolParameterType;
  description?: string;
  /** Default false. */
  required?: boolean;
  enum?: (string | number)[];
  /** Schema of the elements of an array parameter; default `{type: "string"}`. */
  items?: JsonObject;
  default?: unknown;
}

export function parametersToSchema(parameters: JsonObject | readonly ToolParameter[] | undefined): JsonObject {
  if (parameters === undefined) return { type: "object", properties: {} };
  if (!Array.isArray(parameters)) {
    const schema = parameters as JsonObject; // not an array, so the JSON Schema form
    if (schema.type !== "object")
      throw new TypeError('parameters must be an object schema ({"type": "object", ...}) or a list');
    return schema;
  }
  const properties: JsonObject = {};
  const required: string[] = [];
  for (const p of parameters as readonly ToolParameter[]) {
    if (!p.name) throw new TypeError("every parameter needs a name");
    if (p.name in properties) throw new TypeError(`parameter "${p.name}" is declared twice`);
    const property: JsonObject = { type: p.type };
    if (p.description) property.description = p.description;
    if (p.enum) property.enum = p.enum;
    if (p.type === "array") property.items = p.items ?? { type: "string" };
    if (p.default !== undefined) property.default = p.default;
    properties[p.name] = property;
    if (p.required) required.push(p.name);
  }
  return required.length ? { type: "object", properties, required } : { type: "object", properties };
}

/** Legacy `actionParameters: {name: description}`: every one a required string. */
export function actionParametersToSchema(actionParameters: Readonly<Record<string, string>>): JsonObject {
  const properties: JsonObject = {};
  for (const [name, description] of Object.entries(actionParameters))
    properties[name] = { type: "string", description };
  const names = Object.keys(properties);
  return names.length ? { type: "object", properties, required: names } : { type: "object", properties };
}
