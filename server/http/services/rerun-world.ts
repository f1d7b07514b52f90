// What a re-run borrows from this server (server/rerun/run.ts RerunWorld): the live settings, toggles,
// hooks, tool providers and bot data, and the model it goes on with once it leaves the recording.
import type { ContinueWith } from "../../../lib/rerun/schemas";
import type { Engine } from "../../composition";
import { RecordingModelClient } from "../../llm/recording-client";
import { createSimulatedModelClient } from "../../llm/simulated";
import type { RerunWorld } from "../../rerun/run";

export function serverWorld(engine: Engine, continueWith: ContinueWith): RerunWorld {
  const live =
    continueWith === "model"
      ? engine.unrecordedModel
      : continueWith === "simulated"
        ? createSimulatedModelClient({ usageStore: engine.stores.usage })
        : null;
  return {
    config: engine.config,
    isEnabled: (name, sessionId) => engine.toggles.isEnabled(name, sessionId),
    hooks: engine.hooks,
    providers: () => engine.providers,
    data: engine.stores,
    live,
    recordCalls: (model, store, clock) => new RecordingModelClient(model, { store, clock, logger: engine.logger }),
    logger: engine.logger,
  };
}
