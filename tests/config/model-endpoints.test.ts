// models.endpoints / models.tasks: parsed with defaults, bad files name the field, and the model
// client built from them routes each task to its endpoint with its fallbacks.
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../server/config/load";
import { createModelClient } from "../../server/composition";
import { OpenAiModelClient } from "../../server/llm/openai-client";
import { createMemoryStores } from "../../server/stores/memory";

// Next's types make NODE_ENV required; the factory reads only the variables named here.
const env = (vars: Record<string, string>) => vars as NodeJS.ProcessEnv;

const endpoints = [
  { name: "ds", baseUrl: "https://api.deepseek.com", apiKeyEnv: "DS_KEY" },
  { name: "local", baseUrl: "http://127.0.0.1:11434/v1" },
];

describe("models.endpoints and models.tasks", () => {
  it("parse with defaults", () => {
    const config = parseConfig(
      { models: { endpoints, tasks: { planner: { endpoint: "ds", model: "deepseek-chat" } } } },
      "test",
    );
    expect(config.models.endpoints[1]).toEqual({ ...endpoints[1], headers: {} });
    expect(config.models.tasks.planner).toEqual({ endpoint: "ds", model: "deepseek-chat", fallback: [] });
  });

  it.each([
    [{ endpoints: [{ ...endpoints[0], apiKeyEnv: "sk-abc123" }] }, "models.endpoints.0.apiKeyEnv"],
    [{ endpoints: [{ ...endpoints[0], kind: "claude" }] }, "models.endpoints.0.kind"],
    [{ endpoints: [endpoints[0], endpoints[0]] }, "models.endpoints.1.name"],
    [{ endpoints, tasks: { planner: { endpoint: "nope", model: "m" } } }, "models.tasks.planner.endpoint"],
    [
      { endpoints, tasks: { utils: { endpoint: "ds", model: "m", fallback: [{ endpoint: "gone", model: "m" }] } } },
      "models.tasks.utils.fallback.0.endpoint",
    ],
  ])("a bad file names the field (%#)", (models, field) => {
    expect(() => parseConfig({ models }, "bad.json")).toThrow(field);
  });

  it("routes tasks to endpoints; kinds are detected from the URL; keys come from the named variable", () => {
    const config = parseConfig(
      {
        models: {
          planner: "fallback-name",
          endpoints,
          tasks: {
            planner: { endpoint: "ds", model: "deepseek-chat", fallback: [{ endpoint: "local", model: "qwen3" }] },
          },
        },
      },
      "test",
    );
    const client = createModelClient(config, createMemoryStores(), env({ DS_KEY: "secret" }));
    expect(client).toBeInstanceOf(OpenAiModelClient);
    expect(client.modelFor("planner")).toBe("deepseek-chat");
    // No task route and no default endpoint: models.<task> (else the planner's name) on the first endpoint.
    expect(client.modelFor("utils")).toBe("fallback-name");
    const statuses = client.endpointStatuses?.() ?? [];
    expect(statuses.map((s) => [s.name, s.kind, s.kindConfigured])).toEqual([
      ["ds", "deepseek", false],
      ["local", "ollama", false],
    ]);
    expect(JSON.stringify(statuses)).not.toContain("secret");
    expect(client.info()).toMatchObject({ provider: "deepseek", simulated: false });
  });

  it("keeps the old shape: no endpoint and no env is SIMULATED; OPENAI_BASE_URL is the default endpoint", () => {
    const config = parseConfig({ models: { planner: "p", replyer: "r" } }, "test");
    expect(createModelClient(config, createMemoryStores(), env({})).info().simulated).toBe(true);
    const client = createModelClient(
      config,
      createMemoryStores(),
      env({ OPENAI_BASE_URL: "http://127.0.0.1:8000/v1" }),
    );
    expect([client.modelFor("planner"), client.modelFor("replyer"), client.modelFor("utils")]).toEqual(["p", "r", "p"]);
    expect(client.endpointStatuses?.().map((s) => [s.name, s.kind])).toEqual([["default", "vllm"]]);
  });

  it("a task naming the default endpoint without OPENAI_BASE_URL/OPENAI_API_KEY is a clear error", () => {
    const config = parseConfig({ models: { endpoints, tasks: { replyer: { endpoint: "default", model: "m" } } } }, "t");
    expect(() => createModelClient(config, createMemoryStores(), env({}))).toThrow(
      /models\.tasks\.replyer.*OPENAI_BASE_URL/,
    );
  });
});
