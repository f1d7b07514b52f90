// GET /api/settings and PATCH /api/settings (docs/interface.md#sources-and-settings): the settings changed live, applied from
// the next turn, audited, and told to every running session as an operator.action.
import { z } from "zod";
import {
  settingsConflictSchema,
  settingsPatchQuerySchema,
  settingsPatchResponseSchema,
  settingsPatchSchema,
  settingsResponseSchema,
  type SettingsDiffEntry,
} from "../../../lib/api/settings";
import { defaultPromptTemplates, promptNames } from "../../engine";
import { SettingsConflictError, SettingsInvalid } from "../../settings/live-settings";
import { apiRoute } from "../context";
import { HttpError } from "../errors";

export const getSettingsRoute = apiRoute({
  method: "GET",
  path: "/api/settings",
  response: settingsResponseSchema,
  handle(_input, ctx) {
    const live = ctx.settings;
    return Promise.resolve({
      body: {
        version: live.currentVersion,
        updatedAt: live.lastUpdatedAt,
        settings: live.current(),
        endpoints: ctx.engine.model.endpointStatuses?.().map((e) => e.name) ?? [],
        promptNames: [...promptNames],
        defaults: { "zh-CN": defaultPromptTemplates("zh-CN"), en: defaultPromptTemplates("en") },
        changes: live.recentChanges,
      },
    });
  },
});

export const patchSettingsRoute = apiRoute({
  method: "PATCH",
  path: "/api/settings",
  query: settingsPatchQuerySchema,
  body: settingsPatchSchema,
  response: z.union([settingsPatchResponseSchema, settingsConflictSchema]),
  async handle({ query, body, actor }, ctx) {
    const preview = body.preview === true || query.dryRun === "1" || query.dryRun === "true";
    let outcome;
    try {
      outcome = await ctx.settings.change(body, actor.name, preview);
    } catch (error) {
      if (error instanceof SettingsConflictError) {
        return {
          status: 409,
          body: { error: error.message, conflict: { version: error.version, changes: error.changes } },
        };
      }
      if (error instanceof SettingsInvalid) {
        throw new HttpError(
          400,
          "invalid settings",
          error.problems.map((p) => ({ ...p, in: "body" as const })),
        );
      }
      throw error;
    }
    if (outcome.applied) {
      await ctx.audit.record({
        actor,
        action: "settings.update",
        target: "settings",
        before: valuesOf(outcome.diff, "before"),
        after: { ...valuesOf(outcome.diff, "after"), version: outcome.version },
        reason: body.reason,
      });
      const action = {
        actor: actor.name,
        action: "settings.change",
        target: "settings",
        detail: { version: outcome.version, paths: outcome.diff.map((d) => d.path), reason: body.reason },
      };
      for (const sessionId of ctx.engine.manager.runningSessionIds()) {
        ctx.engine.bus.emit(sessionId, "operator.action", action);
      }
      // The other nodes of a cluster reload the settings and tell their running sessions the same.
      ctx.engine.stateChanges.changed("settings", { type: "operator.action", data: action });
    }
    return {
      body: { applied: outcome.applied, version: outcome.version, diff: outcome.diff, settings: outcome.after },
    };
  },
});

/** The changed values by path: the audit entry's before or after. */
function valuesOf(diff: SettingsDiffEntry[], side: "before" | "after"): Record<string, unknown> {
  return Object.fromEntries(diff.map((d) => [d.path, d[side]]));
}
