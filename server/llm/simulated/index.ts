// The offline SIMULATED model: deterministic, says plainly that it is simulated, and runs through the
// same OpenAiModelClient as a real endpoint (requests are served in-process by a custom fetch).
import { OpenAiModelClient, type OpenAiModelClientOptions } from "../openai-client";
import { createSimulatedFetch } from "./handler";
import { SIMULATED_MODEL_NAME } from "./wire";

export { handleChatCompletion } from "./handler";

export type SimulatedModelClientOptions = Pick<
  OpenAiModelClientOptions,
  "usageStore" | "prices" | "maxRetries" | "timeoutMs" | "sleep"
>;

export function createSimulatedModelClient(opts: SimulatedModelClientOptions = {}): OpenAiModelClient {
  return new OpenAiModelClient({
    ...opts,
    // Never contacted: the custom fetch answers every request.
    baseURL: "http://simulated.invalid/v1",
    apiKey: "simulated",
    fetch: createSimulatedFetch(),
    models: {
      planner: SIMULATED_MODEL_NAME,
      timingGate: SIMULATED_MODEL_NAME,
      replyer: SIMULATED_MODEL_NAME,
      utils: SIMULATED_MODEL_NAME,
    },
    provider: "simulated",
    simulated: true,
  });
}
