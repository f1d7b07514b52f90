// A cycle card's header counts in proper English plurals, and a tool call's title keeps its width
// however long the arguments (globals.css: titles never shrink, arguments take the rest and wrap).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { CycleCard } from "../../components/cycle/CycleCard";
import { applyEvents, emptyTimeline, type CycleView } from "../../lib/client/timeline";
import type { MonitorEvent } from "../../lib/events/schemas";
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

describe("the live view at narrow widths", () => {
  it("stacks the Now/Totals panels under the timeline instead of hiding them", () => {
    const narrow = /@media \(max-width: 900px\) \{([\s\S]*?)\n\}/.exec(css)?.[1] ?? "";
    expect(narrow).not.toBe("");
    expect(rule(".live-side", narrow)).not.toMatch(/display:\s*none/);
    expect(rule(".live-grid", narrow)).toMatch(/grid-template-rows/);
  });
});
