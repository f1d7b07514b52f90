// A plugin's settings checked against its manifest's configSchema, with the schema's defaults filled in.
import { Ajv } from "ajv";
import type { JsonObject } from "../../../lib/tools/schemas";

// strict:false: authors write schemas with keywords Ajv's strict mode would refuse.
const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: false, addUsedSchema: false });

export function resolvePluginConfig(schema: JsonObject | undefined, given: JsonObject): JsonObject {
  const config = structuredClone(given);
  if (!schema) return config;
  const validate = ajv.compile(schema);
  if (validate(config)) return config;
  const problems = (validate.errors ?? []).map((e) => `${e.instancePath || "(root)"} ${e.message ?? "is invalid"}`);
  throw new Error(`invalid config: ${problems.join("; ")}`);
}
