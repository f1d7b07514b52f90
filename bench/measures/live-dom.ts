// live_dom_p95: a session's live view in Chromium while the engine's bus emits 200 events/s into it
// (the recorded group chat's events, through ledger, hub and Socket.IO /monitor, as a running session
// sends them), on a session with 10,000 events of history. Latency per event: its WebSocket frame
// arriving in the page → the page's DOM showing it (the timeline's data-last-seq reached its seq,
// stamped by a MutationObserver); the first animation frame after that is in the note. Baseline: the same stream, in the same
// browser, into a bare page (socket.io client, one <div> appended per event, no React, no timeline),
// in phases taking turns with the app's so that both meet the same load from other processes.
import type { Page } from "@playwright/test";
import type { MonitorEvent } from "../../lib/events/schemas";
import { openDatabase } from "../../server/db";
import type { AppServer } from "../../server/app-server";
import type { MeasureFn } from "../measure";
import {
  ensureBuild,
  launchChromium,
  loggedInPage,
  recordedEvents,
  socketIoClientScript,
  startDashboardServer,
} from "../support/browser";
import { sessionRecord } from "../support/engine";
import { percentile, spread } from "../support/stats";
import { tempDatabaseUrl, withTempDir } from "../support/temp-db";

const SESSION = "live-bench";
const HISTORY = 10_000;
const RATE = 200;

type Probe = { recv: [number, number][]; dom: [number, number][]; painted: [number, number][] };

/** Runs in the page before its scripts: stamps every event frame and every DOM change of data-last-seq. */
function installProbe(sessionId: string): void {
  const probe: Probe = { recv: [], dom: [], painted: [] };
  (window as unknown as { __probe: Probe }).__probe = probe;
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(url: string | URL, protocols?: string | string[]) {
      super(url, protocols);
      this.addEventListener("message", (m: MessageEvent) => {
        const t = performance.now();
        if (typeof m.data !== "string" || !m.data.startsWith("42/monitor,")) return;
        const [name, payload] = JSON.parse(m.data.slice(m.data.indexOf("["))) as [string, unknown];
        if (name !== "event") return;
        for (const e of (Array.isArray(payload) ? payload : [payload]) as { sessionId: string; seq: number }[])
          if (e.sessionId === sessionId) probe.recv.push([e.seq, t]);
      });
    }
  };
  let shown: number[] = [];
  new MutationObserver((records) => {
    const t = performance.now();
    const first = shown.length === 0;
    for (const r of records) {
      const seq = Number((r.target as Element).getAttribute("data-last-seq"));
      if (!seq) continue;
      probe.dom.push([seq, t]);
      shown.push(seq);
    }
    if (first && shown.length)
      requestAnimationFrame(() => {
        const t = performance.now();
        for (const seq of shown) probe.painted.push([seq, t]);
        shown = [];
      });
  }).observe(document, { attributes: true, attributeFilter: ["data-last-seq"], subtree: true });
}

/**
 * Latency of each event received since `since` (page clock) to the DOM change showing it (`dom`)
 * and to the animation frame after that change (`painted`).
 */
function collect(page: Page, since: number): Promise<{ dom: number[]; painted: number[]; received: number }> {
  return page.evaluate((since) => {
    const probe = (window as unknown as { __probe: Probe }).__probe;
    const fresh = probe.recv.filter(([, t]) => t >= since);
    const match = (stamps: [number, number][]) => {
      const out: number[] = [];
      let j = 0;
      for (const [seq, t] of fresh) {
        while (j < stamps.length && (stamps[j][0] < seq || stamps[j][1] < t)) j++;
        if (j < stamps.length) out.push(stamps[j][1] - t);
      }
      return out;
    };
    return { dom: match(probe.dom), painted: match(probe.painted), received: fresh.length };
  }, since);
}

/**
 * The baseline page: the stream appended as plain rows, the newest 200 kept. Its socket stays on
 * long-polling here (its WebSocket upgrade does not happen from a page Playwright serves), so it
 * stamps arrival in its own handler, right after socket.io decoded the frame.
 */
function barePage(sessionId: string, afterSeq: number): string {
  const script = `
    const list = document.getElementById("list");
    const socket = io("/monitor", { forceNew: true, withCredentials: true });
    socket.on("connect", () => {
      socket.emit("subscribe", { sessionId: ${JSON.stringify(sessionId)}, afterSeq: ${afterSeq} });
      window.__ready = true;
    });
    socket.on("event", (payload) => {
      const t = performance.now();
      for (const e of Array.isArray(payload) ? payload : [payload]) {
        if (e.sessionId !== ${JSON.stringify(sessionId)}) continue;
        window.__probe.recv.push([e.seq, t]);
        const row = document.createElement("div");
        row.textContent = "#" + e.seq + " " + e.type + " " + JSON.stringify(e.data).slice(0, 160);
        list.append(row);
        if (list.childElementCount > 200) list.firstElementChild.remove();
        list.setAttribute("data-last-seq", String(e.seq));
      }
    });`;
  return `<!doctype html><html><body><div id="list"></div><script>${socketIoClientScript()}</script><script>${script}</script></body></html>`;
}

/** Emits `seconds` × RATE events through the bus, catching up after late timer ticks. */
async function paced(app: AppServer, mix: readonly MonitorEvent[], from: number, seconds: number): Promise<number> {
  const started = performance.now();
  const total = RATE * seconds;
  let sent = 0;
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * RATE) + 1);
    for (; sent < due; sent++) {
      const e = mix[(from + sent) % mix.length];
      app.engine.bus.emit(SESSION, e.type, e.data);
    }
    await new Promise((r) => setTimeout(r, 2));
  }
  return from + sent;
}

async function seed(url: string): Promise<void> {
  const database = await openDatabase(url, { ledger: { synchronous: "normal" } });
  try {
    await database.stores.sessions.upsert({ ...sessionRecord(SESSION), name: "Live bench" });
    const events = recordedEvents(SESSION, HISTORY, 1, Date.now() - 3_600_000);
    for (let i = 0; i < events.length; i += 2_000) await database.ledger.append(events.slice(i, i + 2_000));
  } finally {
    await database.close();
  }
}

export const run: MeasureFn = ({ quick }) =>
  withTempDir(async (dir) => {
    const build = ensureBuild();
    const url = await tempDatabaseUrl(dir);
    await seed(url);
    const app = await startDashboardServer(url);
    const browser = await launchChromium();
    // The events to stream: more copies of the recording, ids unique to this run.
    const mix = recordedEvents(SESSION, 4_000, 1).map((e) => ({
      ...e,
      data: JSON.parse(JSON.stringify(e.data).replaceAll('":"k', '":"live-k')) as MonitorEvent["data"],
    })) as MonitorEvent[];
    try {
      const page = await loggedInPage(browser, app.url);
      // tsx may name functions through an `__name` helper the page lacks.
      await page.addInitScript({
        content: `globalThis.__name = (f) => f; (${installProbe.toString()})(${JSON.stringify(SESSION)});`,
      });
      await page.route("**/__bench/bare**", (route) =>
        route.fulfill({
          contentType: "text/html",
          body: barePage(SESSION, Number(new URL(route.request().url()).searchParams.get("after"))),
        }),
      );
      const phases = quick ? 2 : 4;
      const phaseSeconds = quick ? 3 : 5;
      const sides = {
        app: { dom: [] as number[], painted: [] as number[], emitted: 0 },
        bare: { dom: [] as number[], painted: [] as number[], emitted: 0 },
      };
      let emitted = 0;
      for (let phase = 0; phase < phases; phase++) {
        for (const side of ["app", "bare"] as const) {
          const lastSeq = HISTORY + emitted;
          if (side === "app") {
            await page.goto(`/sessions/${SESSION}`);
            // The whole history merged (the view opens on its newest 1,000 and fills the rest behind).
            await page.waitForFunction(
              (n) => document.querySelector('[data-testid="timeline"]')?.getAttribute("data-event-count") === String(n),
              lastSeq,
              { timeout: 60_000 },
            );
            await page.locator(".live-dot:not(.live-dot-off)").waitFor({ timeout: 30_000 });
          } else {
            await page.goto(`/__bench/bare?after=${lastSeq}`);
            await page.waitForFunction(() => (window as unknown as { __ready?: boolean }).__ready === true);
          }
          // One second of warm-up per page (JIT, first layouts), not counted.
          emitted = await paced(app, mix, emitted, 1);
          await new Promise((r) => setTimeout(r, 300));
          const since = await page.evaluate(() => performance.now());
          emitted = await paced(app, mix, emitted, phaseSeconds);
          await new Promise((r) => setTimeout(r, 500));
          const got = await collect(page, since);
          sides[side].dom.push(...got.dom);
          sides[side].painted.push(...got.painted);
          sides[side].emitted += RATE * phaseSeconds;
        }
      }
      const { app: a, bare: b } = sides;
      return {
        value: percentile(a.dom, 0.95),
        baseline: percentile(b.dom, 0.95),
        note:
          `${phases} × ${phaseSeconds} s per side, taking turns, at ${RATE} events/s into one session of ${HISTORY.toLocaleString("en-US")}+ events (recorded group chat); ` +
          `event → DOM: live view ${spread(a.dom, 1)} (${a.dom.length} of ${a.emitted} events shown), bare page ${spread(b.dom, 1)} (${b.dom.length} of ${b.emitted}); ` +
          `→ the next animation frame: live view ${spread(a.painted, 1)}, bare page ${spread(b.painted, 1)}; served from ${build}`,
      };
    } finally {
      await browser.close();
      await app.close("bench finished");
    }
  });
