// Per-session provider order (docs/engine-rules.md#tool-registry): builtin, plugin, mcp. A real plugin (through the
// Runner) and a real stdio MCP server both declare a tool named `paint`, and the plugin also one
// named like a builtin; the first provider in that order wins, as the planner's request, the
// executed results and the monitor show.
import { afterEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../support/engine-harness";
import { iconServerConfig } from "../../support/mcp-servers";
import { PluginFolder } from "../../plugins/support";
import { calls, gateContinue, plannerFinish, textOf, toolNames } from "./support";

let h: Harness | undefined;
let folder: PluginFolder | undefined;
afterEach(async () => {
  await h?.close();
  folder?.dispose();
  h = undefined;
  folder = undefined;
});

describe("1.3 provider order per session", () => {
  it("builtin before plugin before mcp: the earlier provider's tool of a name is the one offered and run", async () => {
    folder = new PluginFolder().add("painter", {
      source: `
export default class Painter {
  @Tool({ name: "paint", description: "plugin painter", coreTool: true, parameters: [{ name: "color", type: "string", required: true }] })
  paint(args: { color: string }) { return [true, "plugin painted " + args.color]; }

  @Tool({ name: "query_jargon", description: "plugin jargon", coreTool: true, parameters: [{ name: "words", type: "string" }] })
  jargon() { return [true, "plugin jargon"]; }
}`,
    });
    h = await startHarness({
      config: { plugins: { dirs: [folder.root] }, mcp: { servers: [iconServerConfig("icons")] } },
    });
    await h.engine.plugins.start();
    h.model.enqueue(
      gateContinue,
      calls(
        "画一下，再查个词",
        { id: "p1", name: "paint", arguments: { color: "red" } },
        { id: "j1", name: "query_jargon", arguments: { words: ["yyds"] } },
      ),
      plannerFinish,
    );
    await h.send("帮我画个红色");
    await h.waitForEvent((e) => e.type === "cycle.end" && e.data.endReason === "finish", 15_000);

    const planner = h.model.requests[1].body;
    const offered = toolNames(planner);
    expect(offered.filter((n) => n === "paint")).toHaveLength(1);
    expect(offered.filter((n) => n === "query_jargon")).toHaveLength(1);
    const description = (name: string) =>
      (planner.tools ?? []).flatMap((t) => (t.type === "function" && t.function.name === name ? [t] : []))[0]?.function
        .description;
    // The plugin's paint (offered directly) beats the MCP server's; the builtin query_jargon beats the plugin's.
    expect(description("paint")).toBe("plugin painter");
    expect(description("query_jargon")).not.toBe("plugin jargon");

    const executions = new Map(h.ofType("tool.execution").map((e) => [e.data.toolCallId, e.data]));
    expect(executions.get("p1")).toMatchObject({ providerName: "painter", success: true });
    expect(executions.get("j1")).toMatchObject({ providerName: "maisaka_builtin" });
    const results = h.model.requests[2].body.messages.filter((m) => m.role === "tool");
    expect(results.map(textOf)[0]).toBe("plugin painted red");
    expect(results.map(textOf)[1]).toContain('"results"');

    const withheld = h.ofType("planner.finalized")[0].data.withheldTools;
    expect(withheld).toEqual(
      expect.arrayContaining([
        { name: "paint", reason: "duplicate" },
        { name: "query_jargon", reason: "duplicate" },
      ]),
    );
  });
});
