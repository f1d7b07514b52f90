// plugin.json: the manifest at the root of every plugin folder (docs/plugins.md).
import { z } from "zod";
import { jsonObjectSchema } from "../tools/schemas";

export const PLUGIN_MANIFEST_FILE = "plugin.json";

const pluginIdSchema = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9_.-]{0,63}$/,
    "lowercase letters, digits, _ . - (at most 64, starting with a letter or digit)",
  );

/** A path inside the plugin folder: relative, and never climbing out of it. */
const entrySchema = z
  .string()
  .min(1)
  .refine(
    (p) => !/^([/\\]|[A-Za-z]:)/.test(p) && !p.split(/[/\\]/).includes(".."),
    "must be a relative path inside the plugin folder",
  );

export const pluginManifestSchema = z.object({
  id: pluginIdSchema,
  name: z.string().min(1),
  version: z.string().regex(/^\d+\.\d+\.\d+([-+][0-9A-Za-z.-]+)?$/, "expected a semantic version such as 1.0.0"),
  entry: entrySchema,
  description: z.string().optional(),
  /** JSON Schema of the plugin's settings (config `plugins.config.<id>`); defaults are applied. */
  configSchema: jsonObjectSchema.optional(),
});
export type PluginManifest = z.infer<typeof pluginManifestSchema>;
