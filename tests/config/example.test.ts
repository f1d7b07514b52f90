// The example config shipped for users must stay valid as the schema evolves.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../server/config/load";

describe("maisaka.config.example.json", () => {
  it("parses with the current schema", () => {
    const raw: unknown = JSON.parse(readFileSync("maisaka.config.example.json", "utf8"));
    const config = parseConfig(raw, "maisaka.config.example.json");
    expect(config.bot.nickname).toBe("麦麦");
    expect(config.mcp.servers.map((s) => s.name)).toEqual(["everything"]);
    expect(config.mcp.sampling).toEqual({ enabled: false, maxTokens: 1024 });
    expect(config.models.prices["deepseek-chat"]?.outputPerMTok).toBeGreaterThan(0);
    expect(config.models.prices["gpt-4o-mini"]?.inputPerMTok).toBeGreaterThan(0);
    expect(config.models.tasks.planner?.fallback).toEqual([{ endpoint: "local", model: "qwen3:8b" }]);
    expect(config.models.budgets).toEqual({ dailyUsd: 5, perEndpoint: { deepseek: 3 } });
    // Budgets are keyed by endpoint name, as usage records a configured endpoint.
    const names = config.models.endpoints.map((e) => e.name);
    for (const key of Object.keys(config.models.budgets.perEndpoint)) expect(names).toContain(key);
    expect(config.retention).toMatchObject({ archiveAfterDays: 30, deleteArchivedAfterDays: 180 });
    expect(config.telemetry.otlp?.endpoint).toBe("http://127.0.0.1:4318/v1/traces");
  });
});
