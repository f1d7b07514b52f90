// What the Host hands the Runner to load (a JSON file in the Runner's build folder): the plugins it
// found with their manifests and compiled modules, and the folders that failed before the Runner
// starts (missing folder, bad manifest, a compile error). The Runner cannot read anything else.
import { z } from "zod";
import { pluginManifestSchema } from "./manifest";
import { loadFailureSchema } from "./protocol";

const plannedPluginSchema = z.object({
  folder: z.string().min(1),
  manifest: pluginManifestSchema,
  /** Absolute path of the compiled, self-contained ES module of the plugin's entry. */
  module: z.string().min(1),
});
export type PlannedPlugin = z.infer<typeof plannedPluginSchema>;

export const runnerPlanSchema = z.object({
  plugins: z.array(plannedPluginSchema),
  failed: z.array(loadFailureSchema),
});
export type RunnerPlan = z.infer<typeof runnerPlanSchema>;
