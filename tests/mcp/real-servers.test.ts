// Several real MCP servers from npm at once (issue 12): everything, memory, and filesystem twice with
// different roots. Colliding names are offered per server, each call reaches the server that declared
// the tool and no other (also once that server is dead), results come back byte-exact with their
// blocks and annotations, roots are declared and answered, sampling is refused unless the operator
// enabled it (then the utils task answers through the real ModelClient), elicitation is declined.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { historyContent } from "../../lib/tools/history-content";
import type { ToolSpec } from "../../lib/tools/schemas";
import { OpenAiModelClient } from "../../server/llm/openai-client";
import { McpManager } from "../../server/mcp/manager";
import { McpToolProvider } from "../../server/mcp/provider";
import {
  captureLogger,
  everythingStdioConfig,
  filesystemStdioConfig,
  memoryStdioConfig,
  processAlive,
} from "../support/mcp-servers";
import { invocation } from "../support/tool-invocation";
import { until } from "../support/until";
import { startScriptedOpenAi, type ScriptedOpenAi } from "../support/scripted-openai";

/** A folder the servers' unprivileged user (nobody, when the tests run as root) can work in. */
function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(dir, 0o777);
  return dir;
}

describe("everything, memory and two filesystem servers at once", () => {
  const logger = captureLogger();
  const scratch = scratchDir("maisaka-mcp-real-");
  const rootA = join(scratch, "a");
  const rootB = join(scratch, "b");
  let manager: McpManager;
  let provider: McpToolProvider;
  let specs: ToolSpec[];

  beforeAll(async () => {
    for (const dir of [rootA, rootB, join(scratch, "memory")]) {
      mkdirSync(dir);
      chmodSync(dir, 0o777);
    }
    manager = new McpManager(
      {
        enabled: true,
        servers: [
          everythingStdioConfig(),
          memoryStdioConfig(join(scratch, "memory", "graph.jsonl")),
          filesystemStdioConfig("files_a", [rootA]),
          filesystemStdioConfig("files_b", [rootB]),
        ],
      },
      // A dead server stays dead for the test: its calls must fail, not wait for a reconnection.
      { logger, healthCheckIntervalMs: 0, reconnect: { initialDelayMs: 600_000, maxDelayMs: 600_000 } },
    );
    await manager.start();
    provider = new McpToolProvider(manager);
    specs = await provider.listTools();
  }, 60_000);
  afterAll(async () => {
    await manager.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it("connects all four; both filesystem servers offer every tool under a unique name, visible to operators", () => {
    expect(manager.statuses().map((s) => [s.name, s.state])).toEqual([
      ["everything", "connected"],
      ["memory", "connected"],
      ["files_a", "connected"],
      ["files_b", "connected"],
    ]);
    const names = specs.map((s) => s.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(names).not.toContain("write_file");
    expect(names).toEqual(
      expect.arrayContaining(["files_a__write_file", "files_b__write_file", "create_entities", "echo"]),
    );
    const [, , a, b] = manager.statuses();
    expect(a.toolCount).toBe(b.toolCount);
    expect(a.toolCount).toBeGreaterThan(10);
    expect(b.renamedTools).toContainEqual({
      name: "write_file",
      exposedAs: "files_b__write_file",
      reason: 'name also declared by "files_a", "files_b"',
    });
    expect(specs.find((s) => s.name === "files_b__write_file")).toMatchObject({
      title: "Write File",
      metadata: { serverName: "files_b", originalName: "write_file" },
    });
    expect(logger.warnings.join("\n")).toMatch(/files_b: tool "write_file" offered as "files_b__write_file"/);
  });

  it("declares roots: each filesystem server works in its own configured root", async () => {
    // The filesystem server asks for roots/list once initialized and applies the answer on its own
    // time: under load a first call can come before that, so wait for each to take its roots.
    const allowed = (name: string, root: string) =>
      until(async () => {
        const result = await provider.invoke(invocation(`${name}__list_allowed_directories`));
        return result.content.includes(root) ? result : null;
      }, `${name} to take its root ${root}`);
    const allowedA = await allowed("files_a", rootA);
    const allowedB = await allowed("files_b", rootB);
    expect(allowedA.content).toContain(rootA);
    expect(allowedA.content).not.toContain(rootB);
    expect(allowedB.content).toContain(rootB);
    expect(manager.statuses()[2].roots).toEqual([{ uri: `file://${rootA}`, name: "a" }]);
  });

  it("a write through the second server lands in the second root only", async () => {
    const written = await provider.invoke(
      invocation("files_b__write_file", { path: join(rootB, "note.txt"), content: "from b" }),
    );
    expect(written.success).toBe(true);
    expect(readFileSync(join(rootB, "note.txt"), "utf8")).toBe("from b");
    expect(existsSync(join(rootA, "note.txt"))).toBe(false);
    // The first server refuses the second's root: the call went to it, not across.
    const refused = await provider.invoke(
      invocation("files_a__write_file", { path: join(rootB, "other.txt"), content: "x" }),
    );
    expect(refused.success).toBe(false);
    expect(existsSync(join(rootB, "other.txt"))).toBe(false);
  });

  it("reads a file back byte-exact: leading indentation and trailing newlines kept", async () => {
    const text = "    indented first line\n\ttabbed\n  \nlast line\n\n\n";
    const file = join(rootA, "exact.txt");
    writeFileSync(file, text);
    chmodSync(file, 0o666);
    const result = await provider.invoke(invocation("files_a__read_text_file", { path: file }));
    expect(result.success).toBe(true);
    expect(result.content).toBe(text);
    expect(historyContent(result)).toBe(text);
  });

  it("keeps content annotations and separate blocks, resources included", async () => {
    const annotated = await provider.invoke(
      invocation("get-annotated-message", { messageType: "error", includeImage: true }),
    );
    expect(annotated.contentItems.map((i) => i.contentType)).toEqual(["text", "image"]);
    expect(annotated.contentItems[0]).toMatchObject({
      text: "Error: Operation failed",
      metadata: { annotations: { priority: 1, audience: ["user", "assistant"] } },
    });
    expect(annotated.contentItems[1].metadata).toEqual({ annotations: { priority: 0.5, audience: ["user"] } });
    const reference = await provider.invoke(
      invocation("get-resource-reference", { resourceType: "Text", resourceId: 1 }),
    );
    expect(reference.success).toBe(true);
    const types = reference.contentItems.map((i) => i.contentType);
    expect(types).toContain("resource");
    expect(types.filter((t) => t === "text").length).toBeGreaterThanOrEqual(2);
    // `content` is the text blocks joined by a newline, as they are.
    const texts = reference.contentItems.filter((i) => i.contentType === "text").map((i) => i.text);
    expect(reference.content).toBe(texts.join("\n"));
  });

  it("the memory server works alongside", async () => {
    const created = await provider.invoke(
      invocation("create_entities", { entities: [{ name: "麦麦", entityType: "bot", observations: ["likes tea"] }] }),
    );
    expect(created.success).toBe(true);
    expect((await provider.invoke(invocation("read_graph"))).content).toContain("likes tea");
  });

  it("sampling is refused by default with a clear error, visible in the server's status", async () => {
    const result = await provider.invoke(invocation("trigger-sampling-request", { prompt: "hi", maxTokens: 10 }));
    expect(`${result.errorMessage}${result.content}`).toMatch(/sampling is disabled by the operator/);
    expect(manager.statuses()[0].clientRequests).toContainEqual(
      expect.objectContaining({ kind: "sampling.refused", detail: expect.stringMatching(/mcp\.sampling\.enabled/) }),
    );
  });

  it("elicitation is declined with a clear message and a visible event", async () => {
    const result = await provider.invoke(invocation("trigger-elicitation-request"));
    expect(result.content).toMatch(/declined/);
    expect(manager.statuses()[0].clientRequests).toContainEqual(
      expect.objectContaining({ kind: "elicitation.declined", detail: expect.stringMatching(/no person is there/) }),
    );
    expect(logger.warnings.join("\n")).toMatch(/everything: elicitation\.declined/);
  });

  it("new roots reach a connected server (roots/list_changed) and replace its folders", async () => {
    const extra = join(scratch, "extra");
    mkdirSync(extra);
    chmodSync(extra, 0o777);
    await manager.setRoots("files_b", [{ uri: pathToFileURL(rootB).href }, { uri: pathToFileURL(extra).href }]);
    await until(
      async () => (await provider.invoke(invocation("files_b__list_allowed_directories"))).content.includes(extra),
      "files_b to take the new roots",
    );
    expect(manager.statuses()[3].roots).toHaveLength(2);
  });

  it("a killed server's tools fail naming it and never reach the other filesystem server", async () => {
    const pid = manager.statuses()[2].pid;
    expect(pid).toBeTypeOf("number");
    process.kill(pid!, "SIGKILL");
    await until(() => manager.statuses()[2].state === "failed", "files_a to be noticed dead");
    expect(processAlive(pid!)).toBe(false);
    for (const path of [join(rootA, "late.txt"), join(rootB, "late.txt")]) {
      const result = await provider.invoke(invocation("files_a__write_file", { path, content: "late" }));
      expect(result.success).toBe(false);
      expect(result.errorMessage).toMatch(
        /MCP server "files_a" that offers "write_file" is failed: server process exited/,
      );
    }
    expect(existsSync(join(rootA, "late.txt"))).toBe(false);
    expect(existsSync(join(rootB, "late.txt"))).toBe(false);
    // The bare name was never the second server's and does not become it now.
    const bare = await provider.invoke(invocation("write_file", { path: join(rootB, "late.txt"), content: "late" }));
    expect(bare.success).toBe(false);
    expect(existsSync(join(rootB, "late.txt"))).toBe(false);
    const names = (await provider.listTools()).map((s) => s.name);
    expect(names).toContain("files_b__write_file");
    expect(names).not.toContain("files_a__write_file");
    expect(names).not.toContain("write_file");
    const ok = await provider.invoke(
      invocation("files_b__write_file", { path: join(rootB, "after.txt"), content: "b" }),
    );
    expect(ok.success).toBe(true);
  });
});

describe("sampling enabled by the operator", () => {
  const logger = captureLogger();
  let openai: ScriptedOpenAi;
  let manager: McpManager;
  let provider: McpToolProvider;

  beforeAll(async () => {
    openai = await startScriptedOpenAi();
    const model = new OpenAiModelClient({
      baseURL: openai.baseURL,
      apiKey: "test",
      models: { planner: "planner-model", utils: "utils-model" },
      maxRetries: 0,
      timeoutMs: 10_000,
    });
    manager = new McpManager(
      {
        enabled: true,
        servers: [everythingStdioConfig("everything"), everythingStdioConfig("other")],
        sampling: { enabled: true, maxTokens: 40, allowedServers: ["everything"] },
      },
      { logger, healthCheckIntervalMs: 0, model },
    );
    await manager.start();
    provider = new McpToolProvider(manager);
  }, 60_000);
  afterAll(async () => {
    await manager.close();
    await openai.close();
  });

  it("answers through the utils model, capped by the policy's maxTokens", async () => {
    openai.enqueue({ kind: "response", content: "a sampled answer", model: "utils-model" });
    const result = await provider.invoke(
      invocation("everything__trigger-sampling-request", { prompt: "say hi", maxTokens: 500 }),
    );
    expect(result.success).toBe(true);
    expect(result.content).toContain("a sampled answer");
    const [request] = openai.requests;
    expect(request.body.model).toBe("utils-model");
    expect(JSON.stringify(request.body.messages)).toContain("say hi");
    expect(request.body.max_tokens ?? request.body.max_completion_tokens).toBe(40);
    expect(manager.statuses()[0].clientRequests).toContainEqual(
      expect.objectContaining({ kind: "sampling.answered", detail: "answered by utils-model" }),
    );
  });

  it("a server outside allowedServers is refused, naming the setting", async () => {
    const result = await provider.invoke(invocation("other__trigger-sampling-request", { prompt: "x", maxTokens: 5 }));
    expect(`${result.errorMessage}${result.content}`).toMatch(/not allowed for MCP server "other"/);
    expect(openai.requests).toHaveLength(1);
  });
});
