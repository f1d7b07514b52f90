// Each plugin's state as operators see it: the `detail` of its GET /api/providers entry.
import { z } from "zod";

export const pluginStateSchema = z.object({
  id: z.string(),
  name: z.string(),
  version: z.string(),
  folder: z.string(),
  state: z.enum(["loaded", "failed"]),
  /** Why loading failed (the plugin's exception, a bad manifest, an invalid config). */
  error: z.string().nullable(),
  tools: z.array(z.string()),
  hooks: z.array(z.string()),
  /** Components the Host refused (e.g. a tool name another plugin already took). */
  warnings: z.array(z.string()),
});
export type PluginState = z.infer<typeof pluginStateSchema>;

/** The Runner process itself: the `detail` of the `plugin_runtime` entry. */
export const runnerStateSchema = z.object({
  pid: z.number().int().nullable(),
  generation: z.number().int(),
  restarts: z.number().int(),
  startedAt: z.number().nullable(),
  plugins: z.array(pluginStateSchema),
});
export type RunnerState = z.infer<typeof runnerStateSchema>;
