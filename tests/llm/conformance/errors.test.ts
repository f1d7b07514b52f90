// Conformance: misbehaving endpoints give a clear error naming the endpoint, and the fallback answers.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ModelProblem } from "../../../server/llm/model-client";
import { OpenAiModelClient } from "../../../server/llm/openai-client";
import { startScriptedOpenAi, type ScriptedOpenAi } from "../../support/scripted-openai";
import { textStream } from "./wire";

let primary: ScriptedOpenAi;
let backup: ScriptedOpenAi;
beforeEach(async () => {
  primary = await startScriptedOpenAi();
  backup = await startScriptedOpenAi();
});
afterEach(async () => {
  await primary.close();
  await backup.close();
});

function client(): OpenAiModelClient {
  return new OpenAiModelClient({
    endpoints: [
      { name: "main", baseURL: primary.baseURL, apiKey: "k", kind: "deepseek" },
      { name: "spare", baseURL: backup.baseURL, apiKey: "k", kind: "ollama" },
    ],
    routes: {
      planner: [
        { endpoint: "main", model: "deepseek-chat" },
        { endpoint: "spare", model: "qwen3" },
      ],
    },
    maxRetries: 1,
    sleep: async () => undefined,
  });
}

async function askWithProblems(c: OpenAiModelClient) {
  const errors: ModelProblem[] = [];
  const res = await c.chat({
    task: "planner",
    messages: [{ role: "user", content: "hi" }],
    onError: (p) => errors.push(p),
  });
  return { res, errors };
}

const html502 = {
  kind: "raw" as const,
  status: 502,
  contentType: "text/html",
  body: "<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>",
};

describe("bad answers", () => {
  it("an HTML 502 page: llm.error names the endpoint and the page, the fallback endpoint answers", async () => {
    primary.enqueue(html502, html502);
    backup.enqueue(textStream("from spare"));
    const c = client();
    const { res, errors } = await askWithProblems(c);
    expect(res).toMatchObject({ content: "from spare", model: "qwen3", endpoint: "spare" });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ endpoint: "main", model: "deepseek-chat", status: 502 });
    expect(errors[0].error).toBe('HTTP 502: an HTML error page ("502 Bad Gateway")');
    const [main, spare] = c.endpointStatuses();
    expect(main).toMatchObject({ kind: "deepseek", failures: 1, calls: 1 });
    expect(main.lastError?.message).toMatch(/endpoint "main".*HTML error page/);
    expect(spare).toMatchObject({ kind: "ollama", failures: 0, calls: 1, promptTokens: 10, completionTokens: 5 });
    expect(spare.latencyMs.p50).not.toBeNull();
  });

  it("200 with an error body, and a 200 HTML page, are errors, not empty answers", async () => {
    const errorBody = {
      kind: "raw" as const,
      body: JSON.stringify({ error: { message: "upstream quota exhausted", code: 429 } }),
    };
    const page = { kind: "raw" as const, contentType: "text/html", body: "<!doctype html><title>Login</title>" };
    primary.enqueue(errorBody, page);
    backup.enqueue(textStream("ok"));
    const { errors } = await askWithProblems(client());
    expect(errors.map((e) => e.error)).toEqual(['answered an HTML page ("Login") instead of JSON']);
    expect(primary.requests).toHaveLength(2);
  });

  it("a stream that stops mid-way is retried, then falls back; all failing gives one error naming both", async () => {
    primary.enqueue({ kind: "truncate", content: "par" }, { kind: "truncate" });
    backup.enqueue({ kind: "raw", body: "not json at all" }, { kind: "raw", body: "{}" });
    const c = client();
    const errors: ModelProblem[] = [];
    const call = c.chat({
      task: "planner",
      messages: [{ role: "user", content: "hi" }],
      onError: (p) => errors.push(p),
    });
    await expect(call).rejects.toThrow(/endpoint "main".*then.*endpoint "spare".*without choices/);
    expect(errors.map((e) => e.endpoint)).toEqual(["main", "spare"]);
    expect(errors[1].error).toBe('answered JSON without choices[0].message: "{}"');
  });
});
