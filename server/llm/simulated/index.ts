// The offline SIMULATED model: deterministic, says plainly that it is simulated, and runs through the
// same OpenAiModelClient as a real endpoint (requests are served in-process by a custom fetch).
// Its wording varies by a seed: the `seed` option, else the env MAISAKA_SIMULATED_SEED, else a fixed
// default; the same seed and the same chat always give the same answers.
import { OpenAiModelClient, type OpenAiModelClientOptions } from "../openai-client";
import { createSimulatedFetch, type SimulatedModelOptions } from "./handler";
import { SIMULATED_MODEL_NAME } from "./wire";

export { handleChatCompletion, type SimulatedModelOptions } from "./handler";

export type SimulatedModelClientOptions = Pick<
  OpenAiModelClientOptions,
  "usageStore" | "prices" | "maxRetries" | "timeoutMs" | "sleep"
> &
  SimulatedModelOptions;

export function createSimulatedModelClient(opts: SimulatedModelClientOptions = {}): OpenAiModelClient {
  const { seed, ...clientOpts } = opts;
  return new OpenAiModelClient({
    ...clientOpts,
    // Never contacted: the custom fetch answers every request.
    baseURL: "http://simulated.invalid/v1",
    apiKey: "simulated",
    fetch: createSimulatedFetch({ seed }),
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
