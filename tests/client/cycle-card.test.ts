// A cycle card's header counts in proper English plurals, and a tool call's title keeps its width
// however long the arguments (globals.css: titles never shrink, arguments take the rest and wrap).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { CycleCard } from "../../components/cycle/CycleCard";
import { ModelInputPanel } from "../../components/model-input/ModelInputPanel";
import { applyEvents, emptyTimeline, type CycleView } from "../../lib/client/timeline";
import type { ModelAnswer, MonitorEvent } from "../../lib/events/schemas";
import { SESSION, fixtureEvents } from "./fixture";

function cycles(events: readonly MonitorEvent[]): CycleView[] {
  return applyEvents(emptyTimeline(SESSION), events).items.flatMap((i) => (i.kind === "cycle" ? [i.cycle] : []));
}

const css = readFileSync(fileURLToPath(new URL("../../app/globals.css", import.meta.url)), "utf8").replace(
  /\/\*[\s\S]*?\*\//g,
  "",
);
/** The declarations of every rule whose selector list names `selector` (inside `scope` if given). */
function rule(selector: string, scope = css): string {
  return [...scope.matchAll(/([^{}]+)\{([^{}]*)\}/g)]
    .filter((m) => m[1].split(",").some((s) => s.trim() === selector))
    .map((m) => m[2])
    .join("\n");
}

describe("CycleCard", () => {
  it("says '1 message in context', not '1 msgs'", () => {
    const one = fixtureEvents.map((e) =>
      e.type === "cycle.start" && e.data.cycleId === "c1" ? { ...e, data: { ...e.data, historyCount: 1 } } : e,
    );
    const html = renderToStaticMarkup(createElement(CycleCard, { cycle: cycles(one)[0] }));
    expect(html).toContain("1 message in context");
    expect(html).not.toContain("msgs");
    const seven = renderToStaticMarkup(createElement(CycleCard, { cycle: cycles(fixtureEvents)[1] }));
    expect(seven).toContain("7 messages in context");
    expect(seven).toMatch(/\d+ messages · \d+ tools offered/);
  });

  it("marks a tool call's title so it keeps its width, and lets long arguments wrap", () => {
    const withLongArgs = fixtureEvents.map((e) =>
      e.type === "tool.execution" && e.data.toolName === "reply"
        ? { ...e, data: { ...e.data, args: { msg_id: "m5", reference_info: "很长的参数".repeat(80) } } }
        : e,
    );
    const html = renderToStaticMarkup(createElement(CycleCard, { cycle: cycles(withLongArgs)[1] }));
    expect(html).toMatch(/<span class="muted tool-title">回复<\/span>/);
    const title = rule(".tool-title");
    expect(title).toMatch(/flex-shrink:\s*0/);
    expect(title).toMatch(/white-space:\s*nowrap/);
    const args = rule(".args");
    expect(args).toMatch(/min-width:\s*0/);
    expect(args).toMatch(/overflow-wrap:\s*anywhere/);
    expect(args).not.toMatch(/white-space:\s*nowrap/);
  });
});

describe("who answered", () => {
  const spare: ModelAnswer = { endpoint: "spare", model: "gemma", fallback: true };
  const main: ModelAnswer = { endpoint: "main", model: "deepseek-chat" };
  /** The fixture's second cycle (gate and planner), answered as given. */
  function answered(gate: ModelAnswer, planner: ModelAnswer): CycleView {
    const id = cycles(fixtureEvents)[1].cycleId;
    const events = fixtureEvents.map((e): MonitorEvent => {
      if (e.type === "timing_gate.result" && e.data.cycleId === id)
        return { ...e, data: { ...e.data, answeredBy: gate } };
      if (e.type === "planner.finalized" && e.data.cycleId === id && e.data.planner && e.data.timingGate)
        return {
          ...e,
          data: {
            ...e.data,
            timingGate: { ...e.data.timingGate, result: { ...e.data.timingGate.result, answeredBy: gate } },
            planner: { ...e.data.planner, answeredBy: planner },
          },
        };
      return e;
    });
    return cycles(events)[1];
  }

  it("the card names the endpoint and model that answered after a fallback, and nothing when the first one did", () => {
    const html = renderToStaticMarkup(createElement(CycleCard, { cycle: answered(spare, main) }));
    expect(html.match(/data-testid="answered-by"/g)).toHaveLength(1);
    expect(html).toContain("fallback: gemma on spare");
    const planner = renderToStaticMarkup(createElement(CycleCard, { cycle: answered(main, spare) }));
    expect(planner.match(/data-testid="answered-by"/g)).toHaveLength(1);
    expect(planner).toMatch(/class="planner-meta[^"]*"[^>]*>[\s\S]*fallback: gemma on spare/);
    const first = renderToStaticMarkup(createElement(CycleCard, { cycle: answered(main, main) }));
    expect(first).not.toContain('data-testid="answered-by"');
  });

  it("what the model saw names who answered when it was not the model asked", () => {
    const data = answered(main, spare).finalized;
    if (!data) throw new Error("no planner.finalized in the fixture's second cycle");
    const html = renderToStaticMarkup(createElement(ModelInputPanel, { data }));
    expect(html).toContain("answered by gemma on spare");
    const asked = data.request?.model ?? "";
    const same = {
      ...data,
      planner: data.planner && { ...data.planner, answeredBy: { endpoint: "main", model: asked } },
    };
    expect(renderToStaticMarkup(createElement(ModelInputPanel, { data: same }))).not.toContain("answered by");
  });
});

describe("the live view at narrow widths", () => {
  it("stacks the Now/Totals panels under the timeline instead of hiding them", () => {
    const narrow = /@media \(max-width: 900px\) \{([\s\S]*?)\n\}/.exec(css)?.[1] ?? "";
    expect(narrow).not.toBe("");
    expect(rule(".live-side", narrow)).not.toMatch(/display:\s*none/);
    expect(rule(".live-grid", narrow)).toMatch(/grid-template-rows/);
  });
});
